// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: small text helpers for command lines and
 * environment variables. */
#ifndef GPUFFT_BENCH_TEXT_H
#define GPUFFT_BENCH_TEXT_H

#include <sstream>
#include <string>
#include <vector>

namespace gpufft::apps {

//! "a,b,,c" -> {"a", "b", "c"}: empty items are dropped.
inline std::vector<std::string> split_commas(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace gpufft::apps

#endif
