// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: choices measured by tuning, kept across runs (internal). */
#ifndef GPUFFT_LIB_CORE_WISDOM_H
#define GPUFFT_LIB_CORE_WISDOM_H

#include <optional>
#include <string>

namespace gpufft::detail {

/*!
 * The wisdom file holds one "key<TAB>value" line per tuned problem; a later
 * line overrides an earlier one. Its path is $GPUFFT_WISDOM, else
 * $XDG_CACHE_HOME/gpufft/wisdom, else ~/.cache/gpufft/wisdom. It is read once
 * per process; a missing or unreadable file is no wisdom.
 */
std::optional<std::string> wisdom_lookup(const std::string& key);

//! Remembers the value in this process and appends it to the file (logged
//! if the file cannot be written: tuning still applies to this run).
void wisdom_store(const std::string& key, const std::string& value);

} // namespace gpufft::detail

#endif
