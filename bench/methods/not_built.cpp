// A method this build lacks: listed in every report as "not built" with the reason.
#include "registry.h"

namespace bench {
namespace {

class NotBuilt : public Method {
 public:
  NotBuilt(std::string name, std::string why) : name_(std::move(name)), why_(std::move(why)) {}
  std::string name() const override { return name_; }
  Availability available(const RunConfig&) override { return {Availability::kNotBuilt, why_}; }
  Counters write(const RunConfig&, const Pattern&, const StepData&) override { return {}; }
  Counters read_verify(const RunConfig&, const Pattern&, uint64_t*) override { return {}; }
  void remove(const RunConfig&, const Pattern&) override {}

 private:
  std::string name_, why_;
};

}  // namespace

std::unique_ptr<Method> make_not_built(const std::string& name, const std::string& why) {
  return std::make_unique<NotBuilt>(name, why);
}

}  // namespace bench
