/* gpufft-spectrum: reading IQ from files, standard input and SigMF recordings. */
#include "app.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace gpufft_app {

namespace {

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The recording's name without .sigmf-meta / .sigmf-data.
std::string sigmf_base(const std::string& path)
{
    for (const char* ext : { ".sigmf-meta", ".sigmf-data" })
        if (ends_with(path, ext))
            return path.substr(0, path.size() - std::strlen(ext));
    return path;
}

double number_at(const json& obj, const std::string& key, const std::string& where)
{
    const json* v = obj.find(key);
    if (!v)
        return 0;
    if (v->type != json::kind::number)
        throw app_error(where + ": " + key + " is not a number");
    return v->number;
}

} // namespace

bool is_sigmf(const std::string& path)
{
    return ends_with(path, ".sigmf-meta") || ends_with(path, ".sigmf-data") ||
           file_exists(path + ".sigmf-meta");
}

iq_source open_sigmf(const std::string& path)
{
    const std::string base = sigmf_base(path), meta = base + ".sigmf-meta";
    std::ifstream f(meta, std::ios::binary);
    if (!f)
        throw app_error(meta + ": cannot open the SigMF metadata: " + std::strerror(errno));
    std::ostringstream text;
    text << f.rdbuf();
    json doc;
    try {
        doc = parse_json(text.str());
    } catch (const app_error& e) {
        throw app_error(meta + ": " + e.what());
    }
    const json* global = doc.find("global");
    if (doc.type != json::kind::object || !global || global->type != json::kind::object)
        throw app_error(meta + ": no \"global\" object (not SigMF metadata)");
    const json* dt = global->find("core:datatype");
    if (!dt || dt->type != json::kind::string)
        throw app_error(meta + ": global has no core:datatype string");

    iq_source src;
    const std::pair<const char*, gpufft::sample_format> types[] = {
        { "cf32_le", gpufft::sample_format::cf32 },
        { "ci16_le", gpufft::sample_format::cs16 },
        { "ci8", gpufft::sample_format::cs8 },
        { "cu8", gpufft::sample_format::cu8 },
    };
    bool known = false;
    for (const auto& t : types)
        if (dt->string == t.first)
            src.format = t.second, known = true;
    if (!known)
        throw app_error(meta + ": unsupported core:datatype \"" + dt->string +
                        "\" (supported: cf32_le, ci16_le, ci8, cu8)");
    src.sample_rate = number_at(*global, "core:sample_rate", meta);
    if (const json* caps = doc.find("captures");
        caps && caps->type == json::kind::array && !caps->array.empty())
        src.center_hz = number_at(caps->array.front(), "core:frequency", meta);
    src.data_path = base + ".sigmf-data";
    if (!file_exists(src.data_path))
        throw app_error(src.data_path + ": the SigMF data file is missing");
    return src;
}

std::size_t pump(std::FILE* in,
                 gpufft::spectrum& s,
                 const gpufft::spectrum::sink& out,
                 const std::function<void(std::size_t)>& progress)
{
    std::vector<unsigned char> buf(1 << 20);
    std::size_t total = 0;
    while (true) {
        const std::size_t got = std::fread(buf.data(), 1, buf.size(), in);
        if (got == 0) {
            if (std::ferror(in))
                throw app_error(std::string("read error: ") + std::strerror(errno));
            break;
        }
        total += got;
        s.push_bytes(buf.data(), got, out);
        if (progress)
            progress(total);
    }
    s.flush(out);
    return total;
}

} // namespace gpufft_app
