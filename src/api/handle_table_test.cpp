#include "api/handle_table.h"

#include <gtest/gtest.h>

namespace tapio::api {
namespace {

TEST(HandleTable, LiveTokensFindTheirObjectOnlyAsTheirKind) {
  HandleTable& table = HandleTable::instance();
  int a = 0, b = 0;
  const uintptr_t ta = table.issue(HandleKind::kEngine, &a);
  const uintptr_t tb = table.issue(HandleKind::kVar, &b);
  EXPECT_NE(ta, 0u);
  EXPECT_NE(ta, tb);
  EXPECT_EQ(table.find(ta, HandleKind::kEngine), &a);
  EXPECT_EQ(table.find(tb, HandleKind::kVar), &b);
  EXPECT_EQ(table.find(ta, HandleKind::kVar), nullptr);  // an engine passed as a variable
  EXPECT_EQ(table.find(0, HandleKind::kEngine), nullptr);
  EXPECT_EQ(table.find(ta + (uintptr_t{1} << 20), HandleKind::kEngine), nullptr);  // made up
  table.retire(ta);
  table.retire(tb);
}

TEST(HandleTable, ARetiredTokenStaysInvalidWhenItsSlotIsReused) {
  HandleTable& table = HandleTable::instance();
  int a = 0, b = 0;
  const uintptr_t old = table.issue(HandleKind::kEngine, &a);
  table.retire(old);
  EXPECT_EQ(table.find(old, HandleKind::kEngine), nullptr);
  const uintptr_t reused = table.issue(HandleKind::kEngine, &b);  // the same slot, newer
  EXPECT_NE(reused, old);
  EXPECT_EQ(table.find(old, HandleKind::kEngine), nullptr);
  EXPECT_EQ(table.find(reused, HandleKind::kEngine), &b);
  table.retire(old);  // retiring a stale token again leaves the new one alone
  EXPECT_EQ(table.find(reused, HandleKind::kEngine), &b);
  table.retire(reused);
}

TEST(HandleTable, RegistrationRetiresWhenTheObjectDies) {
  struct Object {
    Registration<int, HandleKind::kIo> registration{this};
  };
  int* handle = nullptr;
  {
    Object o;
    handle = o.registration.handle();
    EXPECT_EQ(HandleTable::instance().find(reinterpret_cast<uintptr_t>(handle), HandleKind::kIo),
              &o);
  }
  EXPECT_EQ(HandleTable::instance().find(reinterpret_cast<uintptr_t>(handle), HandleKind::kIo),
            nullptr);
}

}  // namespace
}  // namespace tapio::api
