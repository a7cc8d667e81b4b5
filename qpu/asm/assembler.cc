// SPDX-License-Identifier: GPL-3.0-or-later
/* The assembler: preprocessing (includes, macros), two passes (labels, then
 * encoding), and the operand-to-field mapping with its port checks. */
#include "assembler.h"
#include "../isa/syntax.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace qpu::assembler {

using namespace qpu::isa;
using syntax::split_top;
using syntax::trim;

namespace {

/*! One source line after preprocessing, with where it came from. */
struct source_line {
    std::string where; // "file:line" (plus the macro call site)
    std::string text;
};

[[noreturn]] void fail(const std::string& where, const std::string& message)
{
    throw error(where + ": " + message);
}

std::string strip_comment(const std::string& line)
{
    bool in_string = false;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"')
            in_string = !in_string;
        if (in_string)
            continue;
        if (line[i] == '#' || (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/'))
            return line.substr(0, i);
    }
    return line;
}

bool is_identifier(const std::string& s)
{
    if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (char c : s)
        if (!(std::isalnum((unsigned char)c) || c == '_'))
            return false;
    return true;
}

std::string read_text_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string folder_of(const std::string& path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

struct macro {
    std::vector<std::string> params;
    std::vector<source_line> body;
};

/*! Flattens includes and macro calls into plain lines. */
class preprocessor {
public:
    explicit preprocessor(const options& opts) : d_opts(opts) {}

    void add_source(const std::string& text, const std::string& name, int depth)
    {
        if (depth > 32)
            fail(name, ".include nested too deeply");
        std::istringstream in(text);
        std::string raw;
        int line_number = 0;
        macro* defining = nullptr;
        std::string defining_where;
        while (std::getline(in, raw)) {
            ++line_number;
            std::string where = name + ":" + std::to_string(line_number);
            std::string line = trim(strip_comment(raw));
            std::string word = line.substr(0, line.find_first_of(" \t"));
            if (defining) {
                if (word == ".endm")
                    defining = nullptr;
                else if (word == ".macro")
                    fail(where, ".macro inside a .macro definition");
                else
                    defining->body.push_back({where, line});
                continue;
            }
            if (word == ".macro") {
                std::vector<std::string> head = split_top(trim(line.substr(6)), ',');
                std::string first = head[0];
                size_t space = first.find_first_of(" \t");
                std::string macro_name = trim(first.substr(0, space));
                if (!is_identifier(macro_name))
                    fail(where, "bad macro name '" + macro_name + "'");
                if (d_macros.count(macro_name))
                    fail(where, "macro '" + macro_name + "' defined twice");
                macro m;
                if (space != std::string::npos)
                    head[0] = trim(first.substr(space));
                else
                    head.erase(head.begin());
                for (const std::string& p : head) {
                    if (!is_identifier(p))
                        fail(where, "bad macro parameter '" + p + "'");
                    m.params.push_back(p);
                }
                defining = &(d_macros[macro_name] = m);
                defining_where = where;
                continue;
            }
            if (word == ".endm")
                fail(where, ".endm without .macro");
            if (word == ".include") {
                include(trim(line.substr(8)), name, where, depth);
                continue;
            }
            emit({where, line}, 0);
        }
        if (defining)
            fail(defining_where, ".macro without .endm");
    }

    std::vector<source_line> lines;

private:
    void include(const std::string& quoted, const std::string& from, const std::string& where,
                 int depth)
    {
        if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
            fail(where, ".include needs a quoted file name");
        std::string file = quoted.substr(1, quoted.size() - 2);
        std::vector<std::string> candidates;
        if (!file.empty() && file[0] == '/')
            candidates.push_back(file);
        else {
            candidates.push_back(folder_of(from) + "/" + file);
            for (const std::string& dir : d_opts.include_dirs)
                candidates.push_back(dir + "/" + file);
        }
        for (const std::string& path : candidates) {
            std::ifstream probe(path);
            if (probe) {
                add_source(read_text_file(path), path, depth + 1);
                return;
            }
        }
        fail(where, "cannot find include file \"" + file + "\"");
    }

    /*! Adds a line, expanding it if it calls a macro. */
    void emit(const source_line& line, int depth)
    {
        std::string text = line.text;
        // A leading label stays on its own line.
        size_t colon = text.find(':');
        if (colon != std::string::npos && is_identifier(trim(text.substr(0, colon)))) {
            lines.push_back({line.where, text.substr(0, colon + 1)});
            text = trim(text.substr(colon + 1));
        }
        std::string word = text.substr(0, text.find_first_of(" \t"));
        auto found = d_macros.find(word);
        if (found == d_macros.end()) {
            if (!text.empty())
                lines.push_back({line.where, text});
            return;
        }
        if (depth > 64)
            fail(line.where, "macro '" + word + "' expands too deeply (recursive?)");
        const macro& m = found->second;
        std::string rest = trim(text.substr(word.size()));
        std::vector<std::string> args;
        if (!rest.empty())
            args = split_top(rest, ',');
        if (args.size() != m.params.size())
            fail(line.where, "macro '" + word + "' takes " + std::to_string(m.params.size()) +
                                 " arguments, got " + std::to_string(args.size()));
        std::string unique = std::to_string(d_expansions++);
        for (const source_line& body : m.body) {
            std::string where = body.where + " (macro " + word + " at " + line.where + ")";
            std::string out;
            const std::string& t = body.text;
            for (size_t i = 0; i < t.size(); ++i) {
                if (t[i] != '\\') {
                    out += t[i];
                    continue;
                }
                if (i + 1 < t.size() && t[i + 1] == '@') {
                    out += unique;
                    ++i;
                    continue;
                }
                size_t end = i + 1;
                while (end < t.size() && (std::isalnum((unsigned char)t[end]) || t[end] == '_'))
                    ++end;
                std::string param = t.substr(i + 1, end - i - 1);
                size_t k = 0;
                while (k < m.params.size() && m.params[k] != param)
                    ++k;
                if (k == m.params.size())
                    fail(where, "macro '" + word + "' has no parameter '" + param + "'");
                out += args[k];
                i = end - 1;
            }
            emit({where, out}, depth + 1);
        }
    }

    const options& d_opts;
    std::map<std::string, macro> d_macros;
    unsigned d_expansions = 0;
};

/*! The two passes over preprocessed lines. */
class encoder {
public:
    encoder(const options& opts, program& out) : d_out(out)
    {
        for (const auto& [name, value] : opts.defines)
            d_symbols[name] = value;
    }

    void run(const std::vector<source_line>& lines)
    {
        std::map<std::string, int64_t> initial = d_symbols;
        // Pass 1: label addresses (constants may still refer to later labels).
        d_final = false;
        process(lines);
        std::map<std::string, int64_t> labels = d_labels;
        // Pass 2: encode with every label known.
        d_symbols = initial;
        for (const auto& [name, value] : labels)
            d_symbols[name] = value;
        d_final = true;
        d_labels.clear();
        d_out.code.clear();
        process(lines);
        d_out.symbols = d_symbols;
    }

private:
    void process(const std::vector<source_line>& lines)
    {
        for (const source_line& line : lines) {
            d_where = line.where;
            const std::string& text = line.text;
            if (text.back() == ':') {
                std::string label = trim(text.substr(0, text.size() - 1));
                if (syntax::is_register_name(label))
                    fail(d_where, "label '" + label + "' is a register name");
                if (d_labels.count(label))
                    fail(d_where, "label '" + label + "' defined twice");
                d_labels[label] = address();
                d_symbols[label] = address();
                continue;
            }
            if (text.rfind(".set", 0) == 0 && (text.size() == 4 || std::isspace((unsigned char)text[4]))) {
                std::vector<std::string> args = split_top(trim(text.substr(4)), ',');
                if (args.size() != 2 || !is_identifier(args[0]))
                    fail(d_where, ".set needs a name and a value: .set NAME, expression");
                if (syntax::is_register_name(args[0]))
                    fail(d_where, "constant '" + args[0] + "' is a register name");
                if (d_labels.count(args[0]))
                    fail(d_where, "'" + args[0] + "' is already a label");
                try {
                    d_symbols[args[0]] = evaluate(args[1]).integer();
                } catch (const error&) {
                    if (d_final)
                        throw;
                }
                continue;
            }
            if (d_final) {
                d_out.code.push_back(encode_line(text));
                continue;
            }
            // Pass 1 only counts; errors are reported by pass 2.
            try {
                d_out.code.push_back(encode_line(text));
            } catch (const error&) {
                d_out.code.push_back(0);
            }
        }
    }

    int64_t address() const { return int64_t(d_out.code.size()) * INSTRUCTION_BYTES; }

    syntax::value evaluate(const std::string& expression)
    {
        return syntax::evaluate(expression, d_symbols, address(), d_final, d_where);
    }

    uint64_t encode_line(const std::string& text)
    {
        syntax::instruction_encoder enc(d_where, [this](const std::string& e) { return evaluate(e); });
        return enc.encode(text);
    }

    program& d_out;
    std::map<std::string, int64_t> d_symbols;
    std::map<std::string, int64_t> d_labels;
    std::string d_where;
    bool d_final = false;
};

} // namespace

program assemble(const std::string& source, const std::string& name, const options& opts)
{
    preprocessor pre(opts);
    pre.add_source(source, name, 0);
    program out;
    encoder enc(opts, out);
    enc.run(pre.lines);
    return out;
}

program assemble_file(const std::string& path, const options& opts)
{
    std::ifstream probe(path);
    if (!probe)
        throw error(path + ": cannot open");
    return assemble(read_text_file(path), path, opts);
}

} // namespace qpu::assembler
