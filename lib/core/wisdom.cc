// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the wisdom file. */
#include "wisdom.h"
#include <gpufft/registry.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

namespace gpufft::detail {

namespace {

std::filesystem::path wisdom_path()
{
    if (const char* p = std::getenv("GPUFFT_WISDOM"))
        return p;
    if (const char* cache = std::getenv("XDG_CACHE_HOME"))
        return std::filesystem::path(cache) / "gpufft" / "wisdom";
    if (const char* home = std::getenv("HOME"))
        return std::filesystem::path(home) / ".cache" / "gpufft" / "wisdom";
    return {};
}

struct store {
    std::mutex mutex;
    std::map<std::string, std::string> entries;
    bool loaded = false;
};

store& the_store()
{
    static store s;
    return s;
}

void load(store& s)
{
    if (s.loaded)
        return;
    s.loaded = true;
    std::ifstream in(wisdom_path());
    std::string line;
    while (std::getline(in, line)) {
        const auto tab = line.find('\t');
        if (tab != std::string::npos)
            s.entries[line.substr(0, tab)] = line.substr(tab + 1);
    }
}

} // namespace

std::optional<std::string> wisdom_lookup(const std::string& key)
{
    store& s = the_store();
    std::lock_guard<std::mutex> lock(s.mutex);
    load(s);
    const auto it = s.entries.find(key);
    if (it == s.entries.end())
        return std::nullopt;
    return it->second;
}

void wisdom_store(const std::string& key, const std::string& value)
{
    store& s = the_store();
    std::lock_guard<std::mutex> lock(s.mutex);
    load(s);
    s.entries[key] = value;
    const auto path = wisdom_path();
    std::error_code ec;
    if (!path.empty() && path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::app);
    out << key << '\t' << value << '\n';
    if (!out)
        log_line(log_level::warning, "cannot write wisdom file '" + path.string() + "'; tuning applies to this run only");
}

} // namespace gpufft::detail
