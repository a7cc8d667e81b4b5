// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: sample formats from file names, and SigMF recordings read
 * (every capture and annotation) and written (--record, --annotate).
 * Field names and rules: SigMF Specification v1.0.0 (github.com/sigmf/SigMF,
 * sigmf-spec.md), the sections cited where used. */
#include "app.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace gpufft_app {

namespace {

// Members in the order read or written (a rewritten file keeps its order).
using json = nlohmann::ordered_json;

struct format_names {
    gpufft::sample_format format;
    const char* extension; //!< as rtl_sdr, hackrf_transfer, inspectrum name them
    const char* datatype;  //!< SigMF "Dataset Format"
    double divisor;        //!< the engine reads x / divisor (include/gpufft/spectrum.h, sample_format)
    double max_full_scale; //!< the largest value a sample holds
};
const format_names formats[] = {
    { gpufft::sample_format::cu8, ".cu8", "cu8", 127.5, 127.5 },
    { gpufft::sample_format::cs8, ".cs8", "ci8", 128, 128 },
    { gpufft::sample_format::cs16, ".cs16", "ci16_le", 32768, 32768 },
    { gpufft::sample_format::cf32, ".cf32", "cf32_le", 1, 3.4e38 },
};

const format_names& names_of(gpufft::sample_format f)
{
    for (const auto& n : formats)
        if (n.format == f)
            return n;
    throw app_error("no SigMF datatype for " + gpufft::format_name(f));
}

// Our namespace's fields (SigMF "Extension Namespaces"): declared in
// core:extensions as optional, since a reader without them still reads the
// samples (docs/sigmf.md says what it then sees).
const char* const extension_name = "gpufft";
const char* const extension_version = "1.0.0";

bool ends_with(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// What a path that is not a regular file is, as ls -l tells it.
std::string file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "is a directory"
           : S_ISCHR(mode)  ? "is a character device"
           : S_ISBLK(mode)  ? "is a block device"
           : S_ISFIFO(mode) ? "is a FIFO"
           : S_ISSOCK(mode) ? "is a socket"
                            : "is not a file";
}

// The recording's name without .sigmf-meta / .sigmf-data.
std::string sigmf_base(const std::string& path)
{
    for (const char* ext : { ".sigmf-meta", ".sigmf-data" })
        if (ends_with(path, ext))
            return path.substr(0, path.size() - std::strlen(ext));
    return path;
}

std::string directory_of(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// The member `key` of an object as a number in [lo, hi], or `absent`.
double number_at(const json& obj, const std::string& key, double lo, double hi, double absent, const std::string& where)
{
    const auto v = obj.find(key);
    if (v == obj.end())
        return absent;
    if (!v->is_number())
        throw app_error(where + ": " + key + " is not a number");
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi)) {
        std::ostringstream m;
        m << where << ": " << key << " " << d << " is out of range [" << lo << ", " << hi << "]";
        throw app_error(m.str());
    }
    return d;
}

// A sample index or count: a JSON unsigned integer ("uint" in "Datatypes").
std::optional<std::uint64_t> index_at(const json& obj, const std::string& key, const std::string& where)
{
    const auto v = obj.find(key);
    if (v == obj.end())
        return std::nullopt;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<std::int64_t>() >= 0))
        throw app_error(where + ": " + key + " is not a sample index (a whole number >= 0)");
    return v->get<std::uint64_t>();
}

// A member SigMF requires of every segment.
std::uint64_t required_index(const json& obj, const std::string& key, const std::string& where)
{
    const auto v = index_at(obj, key, where);
    if (!v)
        throw app_error(where + ": no " + key + " (SigMF requires it)");
    return *v;
}

std::string string_at(const json& obj, const std::string& key, const std::string& where)
{
    const auto v = obj.find(key);
    if (v == obj.end() || v->is_null())
        return "";
    if (!v->is_string())
        throw app_error(where + ": " + key + " is not a string");
    return v->get<std::string>();
}

// Metadata larger than this is not SigMF a person wrote (annotations included).
constexpr std::size_t max_meta_bytes = 64 << 20;

json read_meta(const std::string& meta)
{
    std::ifstream f(meta, std::ios::binary);
    if (!f)
        throw app_error(meta + ": cannot open the SigMF metadata: " + std::strerror(errno));
    std::ostringstream text;
    text << f.rdbuf();
    if (text.str().size() > max_meta_bytes)
        throw app_error(meta + ": larger than " + std::to_string(max_meta_bytes >> 20) + " MiB (not SigMF metadata)");
    json doc;
    try {
        doc = json::parse(text.str()); // skips a UTF-8 byte order mark
    } catch (const nlohmann::json::exception& e) {
        throw app_error(meta + ": malformed JSON: " + e.what());
    }
    if (!doc.is_object() || !doc.contains("global") || !doc["global"].is_object())
        throw app_error(meta + ": no \"global\" object (not SigMF metadata)");
    return doc;
}

// An array member, or an empty one; anything else is an error.
const json& array_at(const json& doc, const char* key, const std::string& meta)
{
    static const json empty = json::array();
    const auto v = doc.find(key);
    if (v == doc.end() || v->is_null())
        return empty;
    if (!v->is_array())
        throw app_error(meta + ": \"" + key + "\" is not an array");
    return *v;
}

// core:generator of the annotations --annotate writes.
const char* const generator = "gpufft-spectrum";

json annotation_json(const annotation& a)
{
    json j{ { "core:sample_start", a.sample_start } };
    if (a.sample_count)
        j["core:sample_count"] = *a.sample_count;
    if (a.freq_lower_edge)
        j["core:freq_lower_edge"] = *a.freq_lower_edge;
    if (a.freq_upper_edge)
        j["core:freq_upper_edge"] = *a.freq_upper_edge;
    if (!a.label.empty())
        j["core:label"] = a.label;
    if (!a.comment.empty())
        j["core:comment"] = a.comment;
    j["core:generator"] = generator;
    return j;
}

} // namespace

std::optional<gpufft::sample_format> raw_format(const std::string& path, const std::string& format)
{
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw app_error(path + ": is a directory, not an IQ file");
    const format_names* named = nullptr;
    for (const auto& f : formats)
        if (ends_with(path, f.extension))
            named = &f;
    if (named && !format.empty() && gpufft::parse_sample_format(format) != named->format)
        throw usage_error(path + ": the name says " + std::string(named->extension + 1) + " but --format is " + format +
                          " (rename the file or drop --format)");
    if (named)
        return named->format;
    if (!format.empty())
        return gpufft::parse_sample_format(format);
    return std::nullopt;
}

std::string sigmf_datatype(gpufft::sample_format f) { return names_of(f).datatype; }

double ref_scale(gpufft::sample_format format, double full_scale)
{
    return full_scale > 0 ? 2 * full_scale / names_of(format).divisor : 2.0;
}

bool is_sigmf(const std::string& path)
{
    return ends_with(path, ".sigmf-meta") || ends_with(path, ".sigmf-data") || file_exists(path + ".sigmf-meta");
}

iq_source open_sigmf(const std::string& path)
{
    const std::string base = sigmf_base(path), meta = base + ".sigmf-meta";
    const json doc = read_meta(meta);
    const auto& global = doc["global"];
    const auto dt = global.find("core:datatype");
    if (dt == global.end() || !dt->is_string())
        throw app_error(meta + ": global has no core:datatype string");

    iq_source src;
    bool known = false;
    for (const auto& f : formats)
        if (dt->get<std::string>() == f.datatype)
            src.format = f.format, known = true;
    if (!known)
        throw app_error(meta + ": unsupported core:datatype \"" + dt->get<std::string>() +
                        "\" (supported: cf32_le, ci16_le, ci8, cu8)");
    // Optional in SigMF (0: unknown); when given it must be a rate.
    src.sample_rate = number_at(global, "core:sample_rate", 1e-3, max_sample_rate_hz, 0, meta);
    src.hardware = string_at(global, "core:hw", meta);
    // A recording whose samples' full scale is not the datatype's (a 12-bit
    // converter in ci16_le): without it every level reads low.
    src.full_scale = number_at(global, "gpufft:full_scale", 1e-30, names_of(src.format).max_full_scale, 0, meta);
    if (number_at(global, "core:num_channels", 0, 1e9, 1, meta) != 1)
        throw app_error(meta + ": core:num_channels is not 1 (interleaved channels are not supported)");

    // "Captures Array": sorted by core:sample_start; each segment's values
    // apply from its sample_start to the next one's (nothing carries over).
    const auto& caps = array_at(doc, "captures", meta);
    for (std::size_t i = 0; i < caps.size(); ++i) {
        const std::string where = meta + ": captures[" + std::to_string(i) + "]";
        if (!caps[i].is_object())
            throw app_error(where + " is not an object");
        capture c;
        c.sample_start = required_index(caps[i], "core:sample_start", where);
        if (!src.captures.empty() && c.sample_start <= src.captures.back().sample_start)
            throw app_error(where + ": core:sample_start " + std::to_string(c.sample_start) +
                            " does not follow the previous capture's (captures must be sorted)");
        if (index_at(caps[i], "core:header_bytes", where).value_or(0) > 0)
            throw app_error(where + ": core:header_bytes (a header inside the data file) is not supported");
        // Optional in SigMF: NaN, which the program replaces by --center or refuses.
        c.center_hz = number_at(caps[i], "core:frequency", -max_frequency_hz, max_frequency_hz, NAN, where);
        if (const std::string dt_text = string_at(caps[i], "core:datetime", where); !dt_text.empty()) {
            utc_time t;
            std::string why;
            if (!parse_utc(dt_text, t, &why))
                throw app_error(where + ": core:datetime \"" + dt_text + "\" is not an RFC 3339 UTC time" +
                                (why.empty() ? " (YYYY-MM-DDTHH:MM:SS.fffZ)" : ": " + why));
            c.datetime = t;
        }
        src.captures.push_back(c);
    }
    if (src.captures.empty()) // "captures": [] is one capture at sample 0, and nothing more
        src.captures.push_back({ 0, NAN, std::nullopt });
    src.center_hz = src.captures.front().center_hz;

    const auto& anns = array_at(doc, "annotations", meta);
    for (std::size_t i = 0; i < anns.size(); ++i) {
        const std::string where = meta + ": annotations[" + std::to_string(i) + "]";
        if (!anns[i].is_object())
            throw app_error(where + " is not an object");
        annotation a;
        a.sample_start = required_index(anns[i], "core:sample_start", where);
        a.sample_count = index_at(anns[i], "core:sample_count", where);
        for (auto [key, edge] : { std::pair{ "core:freq_lower_edge", &a.freq_lower_edge },
                                  { "core:freq_upper_edge", &a.freq_upper_edge } })
            if (anns[i].contains(key))
                *edge = number_at(anns[i], key, -max_frequency_hz, max_frequency_hz, 0, where);
        a.label = string_at(anns[i], "core:label", where);
        a.comment = string_at(anns[i], "core:comment", where);
        src.annotations.push_back(a);
    }

    // "Non-Conforming Datasets": core:dataset names a data file of another
    // name, next to the metadata.
    src.meta_path = meta;
    src.data_path = base + ".sigmf-data";
    if (const std::string dataset = string_at(global, "core:dataset", meta); !dataset.empty())
        src.data_path = dataset.front() == '/' ? dataset : directory_of(meta) + dataset;
    struct stat st;
    if (::stat(src.data_path.c_str(), &st) != 0)
        throw app_error(src.data_path + ": the SigMF data file " +
                        (errno == ENOENT ? std::string("is missing") : std::string("cannot be read: ") + std::strerror(errno)) +
                        (global.contains("core:dataset") ? " (named by core:dataset)" : ""));
    if (!S_ISREG(st.st_mode))
        throw app_error(src.data_path + ": the SigMF data file " + file_kind(st.st_mode) +
                        ", not a regular file" + (global.contains("core:dataset") ? " (named by core:dataset)" : ""));
    return src;
}

void write_sigmf_meta(const std::string& path, const iq_source& src,
                      const std::optional<std::vector<annotation>>& detected, const std::optional<std::string>& dataset)
{
    json doc;
    if (!src.meta_path.empty()) {
        doc = read_meta(src.meta_path); // every field kept, extensions' too
    } else {
        // "Global Object": core:datatype and core:version are required.
        doc["global"] = { { "core:datatype", sigmf_datatype(src.format) }, { "core:version", "1.0.0" } };
        if (src.sample_rate > 0)
            doc["global"]["core:sample_rate"] = src.sample_rate;
        doc["global"]["core:recorder"] = "gpufft-spectrum";
        json caps = json::array();
        for (const auto& c : src.captures) {
            json j{ { "core:sample_start", c.sample_start } };
            if (!std::isnan(c.center_hz)) // unknown: absent, not 0 Hz
                j["core:frequency"] = c.center_hz;
            if (c.datetime)
                j["core:datetime"] = format_utc(*c.datetime);
            caps.push_back(j);
        }
        doc["captures"] = caps;
        doc["annotations"] = json::array();
    }
    if (!src.hardware.empty())
        doc["global"]["core:hw"] = src.hardware;
    if (src.full_scale > 0 || src.radio) {
        auto& g = doc["global"];
        if (src.full_scale > 0)
            g["gpufft:full_scale"] = src.full_scale;
        if (src.radio) {
            g["gpufft:gain_db"] = src.radio->gain_db;
            json each = json::object();
            for (const auto& [name, db] : src.radio->gains)
                each[name] = db;
            g["gpufft:gains_db"] = each;
            g["gpufft:agc"] = src.radio->agc;
            if (src.radio->lnb_offset_hz != 0) // core:frequency is the sky's: the device was tuned this much lower
                g["gpufft:lnb_offset_hz"] = src.radio->lnb_offset_hz;
        }
        if (!g.contains("core:extensions") || !g["core:extensions"].is_array())
            g["core:extensions"] = json::array();
        auto& ext = g["core:extensions"];
        if (std::none_of(ext.begin(), ext.end(),
                         [](const json& e) { return e.is_object() && e.value("name", "") == extension_name; }))
            ext.push_back({ { "name", extension_name }, { "version", extension_version }, { "optional", true } });
    }
    if (dataset) // another data file: the input's hash is not its
        doc["global"].erase("core:sha512");
    if (dataset && dataset->empty())
        doc["global"].erase("core:dataset");
    else if (dataset)
        doc["global"]["core:dataset"] = *dataset;
    // "Annotations Array": sorted by core:sample_start.
    json anns = json::array();
    if (doc.contains("annotations") && doc["annotations"].is_array())
        for (const auto& a : doc["annotations"])
            if (!detected || !a.is_object() || a.value("core:generator", "") != generator)
                anns.push_back(a);
    if (detected)
        for (const auto& a : *detected)
            anns.push_back(annotation_json(a));
    std::stable_sort(anns.begin(), anns.end(), [](const json& a, const json& b) {
        return a.value("core:sample_start", std::uint64_t(0)) < b.value("core:sample_start", std::uint64_t(0));
    });
    doc["annotations"] = anns;

    output_file out(path);
    const std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), out.get());
    out.commit();
}

sigmf_recorder::sigmf_recorder(const std::string& name, const iq_source& src)
    : d_name(name), d_src(src), d_data(data_name(name), output_file::kind::streamed),
      d_sample_bytes(gpufft::sample_bytes(src.format))
{
}

void sigmf_recorder::put(const unsigned char* data, std::size_t len)
{
    if (d_meta_behind)
        d_waiting.insert(d_waiting.end(), data, data + len);
    else
        std::fwrite(data, 1, len, d_data.get());
}

void sigmf_recorder::write(const unsigned char* data, std::size_t len)
{
    if (d_src.captures.empty()) // a raw input or a device: one capture from the first read
        d_src.captures.push_back({ 0, d_src.center_hz, utc_now() });
    d_bytes += len;
    // Whole samples only ("Dataset Format": nothing but samples in the file).
    while (d_partial && len && d_partial < sizeof d_held) {
        d_held[d_partial++] = *data++, --len;
        if (d_partial == d_sample_bytes) {
            put(d_held, d_sample_bytes);
            d_partial = 0;
        }
    }
    // Here either nothing is held or all of this read went to the held sample,
    // which a read shorter than the rest of it leaves still incomplete.
    const std::size_t whole = len - len % d_sample_bytes;
    put(data, whole);
    std::memcpy(d_held + d_partial, data + whole, len - whole);
    d_partial += len - whole;
    // The metadata's rewrites, each of every capture so far, at most once a
    // second (a sweep adds one a hop) or when the waiting samples fill up.
    const auto now = std::chrono::steady_clock::now();
    if (d_meta_behind &&
        (!d_meta_written || now - *d_meta_written >= std::chrono::seconds(1) || d_waiting.size() >= max_waiting))
        write_meta(std::nullopt);
    d_data.flush();
}

void sigmf_recorder::retune(double center_hz)
{
    const std::uint64_t next = d_bytes / d_sample_bytes;
    if (!d_src.captures.empty() && d_src.captures.back().sample_start == next)
        d_src.captures.pop_back(); // no sample at the previous frequency
    d_src.captures.push_back({ next, center_hz, utc_now() });
    d_meta_behind = true;
}

void sigmf_recorder::write_waiting()
{
    if (!d_waiting.empty()) // an empty vector's data() may be null, which fwrite may not take
        std::fwrite(d_waiting.data(), 1, d_waiting.size(), d_data.get());
    d_waiting.clear();
    d_data.flush();
}

void sigmf_recorder::write_meta(const std::optional<std::vector<annotation>>& detected)
{
    // Samples reach the disk after the metadata naming their capture; before
    // the first metadata none is named wrongly (and a data file that cannot
    // be written leaves no metadata).
    if (!d_meta_written)
        write_waiting();
    write_sigmf_meta(meta_name(d_name), d_src, detected, ""); // its own data file: conforming names
    d_meta_written = std::chrono::steady_clock::now();
    d_meta_behind = false;
    write_waiting();
}

void sigmf_recorder::commit(const std::optional<std::vector<annotation>>& detected)
{
    if (d_src.captures.empty()) // nothing read
        d_src.captures.push_back({ 0, d_src.center_hz, std::nullopt });
    write_meta(detected);
    d_data.commit();
}

} // namespace gpufft_app
