// The catalogue of every core algorithm: one line each, in --list order.
// The name is the file name under builders/<collective>/, the function
// suffix, the CLI value and the environment value.
#include "algorithm.hpp"
#include "builders/builders.hpp"

namespace patcoll::core {
namespace {

using C = Collective;
constexpr std::uint32_t none = 0;

const Algorithm kAlgorithms[] = {
    // MPI_Reduce
    {C::reduce, "linear", none, "root receives every contribution in turn", reduce_linear, nullptr},
};

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

}  // namespace patcoll::core
