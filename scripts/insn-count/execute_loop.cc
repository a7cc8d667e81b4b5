/* Plans one transform (batch 1, one thread) and executes it a given number
 * of times, for scripts/arm-insn-count.sh: the difference between two call
 * counts' instruction totals is the cost of the calls alone.
 *
 *   execute_loop BACKEND N forward|inverse CALLS */
#include <gpufft/gpufft.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s BACKEND N forward|inverse CALLS\n", argv[0]);
        return 2;
    }
    try {
        const std::string dir = argv[3];
        if (dir != "forward" && dir != "inverse")
            throw gpufft::error("direction must be forward or inverse, not \"" + dir + "\"");
        gpufft::problem p;
        p.n = std::strtoull(argv[2], nullptr, 10);
        p.dir = dir == "forward" ? gpufft::direction::forward : gpufft::direction::inverse;
        gpufft::plan_options o;
        o.backend = argv[1];
        gpufft::plan plan(p, o);
        std::vector<gpufft::complex> in(p.span()), out(p.span());
        for (std::size_t i = 0; i < in.size(); ++i) // the count depends on no value
            in[i] = gpufft::complex(float(i % 7) - 3, float(i % 5) - 2);
        const long calls = std::strtol(argv[4], nullptr, 10);
        for (long c = 0; c < calls; ++c)
            plan.execute(in.data(), out.data());
        std::printf("%s n=%zu %s: %s\n", plan.backend().c_str(), p.n, dir.c_str(), plan.describe().c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "execute_loop: %s\n", e.what());
        return 1;
    }
    return 0;
}
