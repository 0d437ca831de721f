#include "core/names.h"

#include <gtest/gtest.h>

#include "core/model.h"

namespace tapio {
namespace {

TEST(NameGrammar, FollowsTheSpec) {
  for (const char* ok : {"x", "T", "_FillValue", "0abc", "a.b", "D1.nreqs", "a-b+c@d",
                         "with space", "a!\"#$%&'()*,:;<=>?[\\]^`{|}~", "\xC3\xA9t\xC3\xA9",
                         "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "x\xC3\xA9"}) {
    EXPECT_EQ(name_grammar_problem(ok), "") << ok;
  }
  for (const char* bad : {"", ".a", "-a", "+a", "@a", " a", "a ", "a/b", "a\tb", "a\x7f",
                          "a\nb", "\xC3", "\xC3(", "\x80", "\xC0\xAF", "\xED\xA0\x80",
                          "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80", "a\xFF"}) {
    EXPECT_NE(name_grammar_problem(bad), "") << bad;
  }
  EXPECT_NE(name_grammar_problem(std::string("a\0b", 3)), "");
}

TEST(NameGrammar, SaysWhy) {
  EXPECT_EQ(name_grammar_problem("\xFF\xFE"), "is not well-formed UTF-8 (byte 0)");
  EXPECT_EQ(name_grammar_problem("a/b"), "contains '/'");
  EXPECT_EQ(name_grammar_problem("a "), "ends in a space");
  EXPECT_NE(name_grammar_problem("-a").find("starts with '-'"), std::string::npos);
}

// What netCDF-C's nc_def_var does besides: 256 bytes at most (NC_EMAXNAME past it), and
// names normalized to NFC ("e" + U+0301 is stored as U+00E9).
TEST(NameDefinition, AddsLengthAndNfc) {
  EXPECT_EQ(name_definition_problem(std::string(kMaxNameBytes, 'a')), "");
  EXPECT_NE(name_definition_problem(std::string(kMaxNameBytes + 1, 'a')).find("257 bytes"),
            std::string::npos);
  EXPECT_EQ(name_definition_problem("\xC3\xA9t\xC3\xA9"), "");  // "été", composed
  const std::string decomposed = "e\xCC\x81t\xC3\xA9";           // "e" U+0301 "té"
  EXPECT_EQ(name_grammar_problem(decomposed), "");
  const std::string why = name_definition_problem(decomposed);
  EXPECT_NE(why.find("NFC"), std::string::npos) << why;
  EXPECT_NE(why.find("'\xC3\xA9t\xC3\xA9'"), std::string::npos) << why;
  EXPECT_NE(name_definition_problem("\xFF\xFE"), "");
}

TEST(PrintableName, EscapesControlAndMalformedBytesOnly) {
  EXPECT_EQ(printable_name("\xFF\xFE"), "\\xff\\xfe");
  EXPECT_EQ(printable_name("a\tb"), "a\\x09b");
  EXPECT_EQ(printable_name("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");
}

TEST(ValidateVariable, RejectsNamesNetcdfRejectsAndTheStepDimension) {
  VariableDef v;
  v.name = "x";
  v.shape = {4};
  v.dim_names = {"n"};
  EXPECT_TRUE(validate_variable(v).ok());
  VariableDef bad = v;
  bad.name = "\xFF\xFE";
  Status st = validate_variable(bad);
  EXPECT_EQ(st.code(), TAPIO_ERR_ARG);
  EXPECT_EQ(st.message(), "variable name '\\xff\\xfe' is not well-formed UTF-8 (byte 0)");
  bad = v;
  bad.dim_names = {kStepDimension};
  st = validate_variable(bad);
  EXPECT_EQ(st.code(), TAPIO_ERR_ARG);
  EXPECT_NE(st.message().find("dimension name 'time' is reserved"), std::string::npos)
      << st.message();
  bad = v;
  bad.dim_names = {std::string(300, 'd')};
  EXPECT_EQ(validate_variable(bad).code(), TAPIO_ERR_ARG);
  EXPECT_EQ(validate_name("attribute", "a/b").code(), TAPIO_ERR_ARG);
}

}  // namespace
}  // namespace tapio
