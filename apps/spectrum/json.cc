/* gpufft-spectrum: a small JSON parser, enough for SigMF metadata. */
#include "app.h"

#include <cstdlib>
#include <cstring>

namespace gpufft_app {

namespace {

class parser
{
public:
    explicit parser(const std::string& t) : d_t(t) {}

    json document()
    {
        json v = value(0);
        space();
        if (d_i != d_t.size())
            fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw app_error("malformed JSON at byte " + std::to_string(d_i) + ": " + what);
    }

    void space()
    {
        while (d_i < d_t.size() && std::strchr(" \t\r\n", d_t[d_i]))
            ++d_i;
    }

    char peek()
    {
        space();
        if (d_i >= d_t.size())
            fail("unexpected end of input");
        return d_t[d_i];
    }

    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "'");
        ++d_i;
    }

    bool literal(const char* word)
    {
        const std::size_t len = std::strlen(word);
        if (d_t.compare(d_i, len, word) != 0)
            return false;
        d_i += len;
        return true;
    }

    json value(int depth)
    {
        if (depth > 200)
            fail("nested too deeply");
        json v;
        const char c = peek();
        if (c == '{') {
            v.type = json::kind::object;
            ++d_i;
            if (peek() == '}')
                return ++d_i, v;
            do {
                if (peek() != '"')
                    fail("expected a member name");
                std::string key = string();
                expect(':');
                v.object.emplace_back(std::move(key), value(depth + 1));
            } while (peek() == ',' && ++d_i);
            expect('}');
        } else if (c == '[') {
            v.type = json::kind::array;
            ++d_i;
            if (peek() == ']')
                return ++d_i, v;
            do
                v.array.push_back(value(depth + 1));
            while (peek() == ',' && ++d_i);
            expect(']');
        } else if (c == '"') {
            v.type = json::kind::string;
            v.string = string();
        } else if (literal("true")) {
            v.type = json::kind::boolean;
            v.boolean = true;
        } else if (literal("false")) {
            v.type = json::kind::boolean;
        } else if (literal("null")) {
            v.type = json::kind::null;
        } else {
            v.type = json::kind::number;
            v.number = number();
        }
        return v;
    }

    double number()
    {
        // JSON's grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
        const std::size_t start = d_i;
        const auto digits = [&] {
            const std::size_t from = d_i;
            while (d_i < d_t.size() && d_t[d_i] >= '0' && d_t[d_i] <= '9')
                ++d_i;
            if (d_i == from)
                fail("expected a digit");
        };
        if (d_t[d_i] == '-')
            ++d_i;
        if (d_i < d_t.size() && d_t[d_i] == '0')
            ++d_i; // no leading zeros
        else
            digits();
        if (d_i < d_t.size() && d_t[d_i] == '.')
            ++d_i, digits();
        if (d_i < d_t.size() && (d_t[d_i] == 'e' || d_t[d_i] == 'E')) {
            ++d_i;
            if (d_i < d_t.size() && (d_t[d_i] == '+' || d_t[d_i] == '-'))
                ++d_i;
            digits();
        }
        return std::strtod(d_t.substr(start, d_i - start).c_str(), nullptr);
    }

    unsigned hex4()
    {
        if (d_i + 4 > d_t.size())
            fail("short \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = d_t[d_i++];
            const char* digits = "0123456789abcdef";
            const char* p = std::strchr(digits, h | 0x20);
            if (!h || !p)
                fail("bad \\u escape");
            v = v * 16 + unsigned(p - digits);
        }
        return v;
    }

    std::string string()
    {
        ++d_i; // the opening quote
        std::string s;
        while (true) {
            if (d_i >= d_t.size())
                fail("unterminated string");
            const char c = d_t[d_i++];
            if (c == '"')
                return s;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string");
            if (c != '\\') {
                s += c;
                continue;
            }
            if (d_i >= d_t.size())
                fail("unterminated string");
            const char e = d_t[d_i++];
            const char* from = "\"\\/bfnrt";
            const char* to = "\"\\/\b\f\n\r\t";
            if (const char* p = e ? std::strchr(from, e) : nullptr) {
                s += to[p - from];
                continue;
            }
            if (e != 'u')
                fail("bad escape");
            unsigned cp = hex4();
            if (cp >= 0xd800 && cp < 0xdc00 && literal("\\u")) {
                const unsigned lo = hex4();
                if (lo < 0xdc00 || lo >= 0xe000)
                    fail("bad surrogate pair");
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            // UTF-8 encoding of the code point.
            if (cp < 0x80) {
                s += char(cp);
            } else if (cp < 0x800) {
                s += char(0xc0 | cp >> 6);
                s += char(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                s += char(0xe0 | cp >> 12);
                s += char(0x80 | (cp >> 6 & 0x3f));
                s += char(0x80 | (cp & 0x3f));
            } else {
                s += char(0xf0 | cp >> 18);
                s += char(0x80 | (cp >> 12 & 0x3f));
                s += char(0x80 | (cp >> 6 & 0x3f));
                s += char(0x80 | (cp & 0x3f));
            }
        }
    }

    const std::string& d_t;
    std::size_t d_i = 0;
};

} // namespace

const json* json::find(const std::string& key) const
{
    for (const auto& m : object)
        if (m.first == key)
            return &m.second;
    return nullptr;
}

json parse_json(const std::string& text) { return parser(text).document(); }

} // namespace gpufft_app
