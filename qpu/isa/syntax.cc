// SPDX-License-Identifier: GPL-3.0-or-later
/* Expressions, register names and the encoding of one instruction line. */
#include "syntax.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <vector>

namespace qpu::isa::syntax {


namespace {

/*! Recursive-descent expression parser over one string. */
class expression_parser
{
public:
    expression_parser(const std::string& text, const std::map<std::string, int64_t>& symbols,
                      int64_t dot, bool strict, const std::string& where)
        : d_text(text), d_symbols(symbols), d_dot(dot), d_strict(strict), d_where(where)
    {
    }

    value parse()
    {
        value v = parse_binary(0);
        skip_space();
        if (d_pos != d_text.size())
            fail("unexpected '" + d_text.substr(d_pos) + "' in expression '" + d_text + "'");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& message) const { throw syntax_error(d_where + ": " + message); }

    void skip_space()
    {
        while (d_pos < d_text.size() && std::isspace((unsigned char)d_text[d_pos]))
            ++d_pos;
    }

    /*! Binary operators by precedence level, lowest first. */
    static int precedence(const std::string& op)
    {
        static const char* const levels[][3] = {
            { "|", nullptr, nullptr },
            { "^", nullptr, nullptr },
            { "&", nullptr, nullptr },
            { "<<", ">>", nullptr },
            { "+", "-", nullptr },
            { "*", "/", "%" },
        };
        for (int level = 0; level < 6; ++level)
            for (const char* candidate : levels[level])
                if (candidate && op == candidate)
                    return level;
        return -1;
    }

    std::string peek_operator()
    {
        skip_space();
        if (d_pos >= d_text.size())
            return "";
        std::string two = d_text.substr(d_pos, 2);
        if (two == "<<" || two == ">>")
            return two;
        std::string one = d_text.substr(d_pos, 1);
        return precedence(one) >= 0 ? one : "";
    }

    value parse_binary(int min_level)
    {
        value left = parse_unary();
        for (;;) {
            std::string op = peek_operator();
            int level = op.empty() ? -1 : precedence(op);
            if (level < min_level || level < 0)
                return left;
            d_pos += op.size();
            value right = parse_binary(level + 1);
            left = apply(op, left, right);
        }
    }

    value apply(const std::string& op, const value& a, const value& b) const
    {
        value r;
        if (a.is_float || b.is_float) {
            double x = a.is_float ? a.real : double(a.integer_value);
            double y = b.is_float ? b.real : double(b.integer_value);
            r.is_float = true;
            if (op == "+")
                r.real = x + y;
            else if (op == "-")
                r.real = x - y;
            else if (op == "*")
                r.real = x * y;
            else if (op == "/")
                r.real = x / y;
            else
                fail("operator " + op + " needs integers");
            return r;
        }
        uint64_t x = uint64_t(a.integer_value), y = uint64_t(b.integer_value);
        if ((op == "/" || op == "%") && y == 0)
            fail("division by zero in '" + d_text + "'");
        uint64_t v = 0;
        if (op == "+")
            v = x + y;
        else if (op == "-")
            v = x - y;
        else if (op == "*")
            v = x * y;
        else if (op == "/")
            v = uint64_t(int64_t(x) / int64_t(y));
        else if (op == "%")
            v = uint64_t(int64_t(x) % int64_t(y));
        else if (op == "<<")
            v = y >= 64 ? 0 : x << y;
        else if (op == ">>")
            v = y >= 64 ? 0 : uint64_t(int64_t(x) >> y);
        else if (op == "&")
            v = x & y;
        else if (op == "^")
            v = x ^ y;
        else if (op == "|")
            v = x | y;
        r.integer_value = int64_t(v);
        return r;
    }

    value parse_unary()
    {
        skip_space();
        if (d_pos >= d_text.size())
            fail("missing value in expression '" + d_text + "'");
        char c = d_text[d_pos];
        if (c == '-' || c == '+' || c == '~') {
            ++d_pos;
            value v = parse_unary();
            if (c == '~') {
                if (v.is_float)
                    fail("~ needs an integer");
                v.integer_value = ~v.integer_value;
            } else if (c == '-') {
                v.real = -v.real;
                v.integer_value = int64_t(0 - uint64_t(v.integer_value));
            }
            return v;
        }
        if (c == '(') {
            ++d_pos;
            value v = parse_binary(0);
            skip_space();
            if (d_pos >= d_text.size() || d_text[d_pos] != ')')
                fail("missing ')' in '" + d_text + "'");
            ++d_pos;
            return v;
        }
        if (std::isdigit((unsigned char)c))
            return parse_number();
        if (c == '.' && (d_pos + 1 >= d_text.size() || !std::isalnum((unsigned char)d_text[d_pos + 1]))) {
            ++d_pos;
            value v;
            v.integer_value = d_dot;
            return v;
        }
        size_t start = d_pos;
        while (d_pos < d_text.size() && (std::isalnum((unsigned char)d_text[d_pos]) || d_text[d_pos] == '_'))
            ++d_pos;
        std::string name = d_text.substr(start, d_pos - start);
        if (name.empty())
            fail("unexpected '" + d_text.substr(start) + "' in expression '" + d_text + "'");
        value v;
        auto found = d_symbols.find(name);
        if (found != d_symbols.end())
            v.integer_value = found->second;
        else if (d_strict)
            fail(is_register_name(name) ? "register " + name + " where a value is needed"
                                        : "unknown symbol '" + name + "'");
        return v;
    }

    value parse_number()
    {
        size_t start = d_pos;
        value v;
        if (d_text.compare(d_pos, 2, "0x") == 0 || d_text.compare(d_pos, 2, "0X") == 0 ||
            d_text.compare(d_pos, 2, "0b") == 0 || d_text.compare(d_pos, 2, "0B") == 0) {
            int base = std::tolower(d_text[d_pos + 1]) == 'x' ? 16 : 2;
            d_pos += 2;
            uint64_t n = 0;
            size_t digits = 0;
            while (d_pos < d_text.size() && std::isxdigit((unsigned char)d_text[d_pos])) {
                int digit = std::isdigit((unsigned char)d_text[d_pos])
                                ? d_text[d_pos] - '0'
                                : std::tolower(d_text[d_pos]) - 'a' + 10;
                if (digit >= base)
                    break;
                if (n >> 60)
                    fail("number too large: " + d_text.substr(start));
                n = n * base + digit;
                ++d_pos;
                ++digits;
            }
            if (digits == 0)
                fail("bad number in '" + d_text + "'");
            v.integer_value = int64_t(n);
        } else {
            while (d_pos < d_text.size() && std::isdigit((unsigned char)d_text[d_pos]))
                ++d_pos;
            bool real = false;
            if (d_pos < d_text.size() && d_text[d_pos] == '.') {
                real = true;
                ++d_pos;
                while (d_pos < d_text.size() && std::isdigit((unsigned char)d_text[d_pos]))
                    ++d_pos;
            }
            if (d_pos < d_text.size() && std::tolower(d_text[d_pos]) == 'e') {
                real = true;
                ++d_pos;
                if (d_pos < d_text.size() && (d_text[d_pos] == '-' || d_text[d_pos] == '+'))
                    ++d_pos;
                while (d_pos < d_text.size() && std::isdigit((unsigned char)d_text[d_pos]))
                    ++d_pos;
            }
            std::string literal = d_text.substr(start, d_pos - start);
            if (real) {
                v.is_float = true;
                v.real = std::strtod(literal.c_str(), nullptr);
            } else {
                if (literal.size() > 19)
                    fail("number too large: " + literal);
                v.integer_value = std::stoll(literal);
            }
        }
        if (d_pos < d_text.size() && (std::isalnum((unsigned char)d_text[d_pos]) || d_text[d_pos] == '_'))
            fail("bad number in '" + d_text + "'");
        return v;
    }

    const std::string& d_text;
    const std::map<std::string, int64_t>& d_symbols;
    int64_t d_dot;
    bool d_strict;
    const std::string& d_where;
    size_t d_pos = 0;
};

struct special_register {
    const char* name;
    uint32_t addr;
    bool file_a, file_b;
};

/*! Numbered register: prefix followed by a number within [0, limit). */
bool parse_numbered(const std::string& name, const char* prefix, unsigned limit, uint32_t& n)
{
    size_t len = std::strlen(prefix);
    if (name.size() <= len || name.compare(0, len, prefix) != 0 || name.size() > len + 2)
        return false;
    for (size_t i = len; i < name.size(); ++i)
        if (!std::isdigit((unsigned char)name[i]))
            return false;
    if (name.size() == len + 2 && name[len] == '0')
        return false;
    n = uint32_t(std::stoul(name.substr(len)));
    return n < limit;
}

/*! Looks a peripheral read or write name up in the ISA tables. */
std::optional<special_register> find_special(const std::string& name, bool write)
{
    special_register found{ nullptr, 0, false, false };
    for (uint32_t addr = 32; addr < 64; ++addr)
        for (bool file_b : { false, true }) {
            const char* n = write ? write_name(addr, file_b) : read_name(addr, file_b);
            if (n && name == n) {
                found.name = n;
                found.addr = addr;
                (file_b ? found.file_b : found.file_a) = true;
            }
        }
    if (!found.name)
        return std::nullopt;
    return found;
}

/*! A name with an optional `.suffix` (pack or unpack). */
std::pair<std::string, std::string> split_suffix(const std::string& text)
{
    size_t dot = text.find('.');
    if (dot == std::string::npos)
        return { text, "" };
    return { text.substr(0, dot), text.substr(dot + 1) };
}

int index_of(const char* const* names, unsigned count, const std::string& name)
{
    for (unsigned i = 0; i < count; ++i)
        if (names[i] && name == names[i])
            return int(i);
    return -1;
}

} // namespace

std::string trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split_top(const std::string& s, char separator)
{
    std::vector<std::string> parts;
    int depth = 0;
    std::string current;
    for (char c : s) {
        depth += (c == '(' || c == '[') - (c == ')' || c == ']');
        if (c == separator && depth == 0) {
            parts.push_back(trim(current));
            current.clear();
        } else {
            current += c;
        }
    }
    parts.push_back(trim(current));
    return parts;
}

int64_t value::integer() const
{
    if (is_float)
        throw syntax_error("a float where an integer is needed");
    return integer_value;
}

uint32_t value::bits() const
{
    if (!is_float)
        return uint32_t(integer_value);
    float f = float(real);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

value evaluate(const std::string& text, const std::map<std::string, int64_t>& symbols, int64_t dot,
               bool strict, const std::string& where)
{
    return expression_parser(text, symbols, dot, strict, where).parse();
}

bool is_register_name(const std::string& name)
{
    uint32_t n;
    return parse_numbered(name, "ra", 32, n) || parse_numbered(name, "rb", 32, n) ||
           parse_numbered(name, "r", 6, n) || find_special(name, false) || find_special(name, true) ||
           name == "r5quad";
}

// ---------------------------------------------------------------------------
// Instruction encoding

struct instruction_encoder::part {
    std::string mnemonic; // base name
    std::vector<std::string> suffixes;
    std::vector<std::string> operands;
};

struct instruction_encoder::read_operand {
    enum kind_t { accumulator,
                  file_a,
                  file_b,
                  peripheral,
                  immediate } kind;
    uint32_t number = 0;             // accumulator index, register number or read address
    bool on_a = false, on_b = false; // ports a peripheral can use
    uint32_t unpack = UNPACK_NOP;
    std::string text;
    value imm;
};

struct instruction_encoder::write_operand {
    uint32_t addr = W_NOP;
    bool on_a = true, on_b = true;
    std::string pack;
    std::string text;
    bool in_file_a = false; // where it went, after place_writes
};

void instruction_encoder::fail(const std::string& message) const
{
    throw syntax_error(d_where + ": " + message);
}

instruction_encoder::read_operand instruction_encoder::parse_read(const std::string& text)
{
    read_operand r;
    r.text = text;
    auto [name, suffix] = split_suffix(text);
    uint32_t n;
    if (parse_numbered(name, "ra", 32, n)) {
        r.kind = read_operand::file_a;
        r.number = n;
    } else if (parse_numbered(name, "rb", 32, n)) {
        r.kind = read_operand::file_b;
        r.number = n;
    } else if (parse_numbered(name, "r", 6, n)) {
        r.kind = read_operand::accumulator;
        r.number = n;
    } else if (auto special = find_special(name, false)) {
        r.kind = read_operand::peripheral;
        r.number = special->addr;
        r.on_a = special->file_a;
        r.on_b = special->file_b;
    } else if (find_special(name, true) || name == "r5quad") {
        fail("'" + name + "' cannot be read (it is a write-only register)");
    } else {
        r.kind = read_operand::immediate;
        r.imm = d_eval(text);
        return r;
    }
    if (!suffix.empty()) {
        int code = index_of(unpack_names, 8, suffix);
        if (code <= 0)
            fail("unknown unpack '." + suffix + "' (16a 16b 8dr 8a 8b 8c 8d)");
        if (r.kind != read_operand::file_a && !(r.kind == read_operand::accumulator && r.number == 4))
            fail("unpack ." + suffix + " applies only to regfile A registers and r4, not " + name);
        r.unpack = uint32_t(code);
    }
    return r;
}

instruction_encoder::write_operand instruction_encoder::parse_write(const std::string& text)
{
    write_operand w;
    w.text = text;
    auto [name, suffix] = split_suffix(text);
    w.pack = suffix;
    uint32_t n;
    if (parse_numbered(name, "ra", 32, n)) {
        w.addr = n;
        w.on_b = false;
    } else if (parse_numbered(name, "rb", 32, n)) {
        w.addr = n;
        w.on_a = false;
    } else if (name == "r4") {
        fail("r4 cannot be written (it receives TMU and SFU results)");
    } else if (auto special = find_special(name, true)) {
        w.addr = special->addr;
        w.on_a = special->file_a;
        w.on_b = special->file_b;
    } else if (find_special(name, false)) {
        fail("'" + name + "' cannot be written (it is a read-only register)");
    } else {
        fail("bad destination register '" + name + "'");
    }
    return w;
}

uint32_t instruction_encoder::small_immediate_code(const value& v, const std::string& text)
{
    if (v.is_float) {
        uint32_t bits = v.bits();
        for (uint32_t code = 32; code < 48; ++code)
            if (small_immediate_value(code) == bits)
                return code;
        fail("float immediate " + text +
             " is not a small immediate (1.0, 2.0 .. 128.0, 1/256 .. 1/2); load it with ldi");
    }
    int64_t i = v.integer_value;
    if (i < -16 || i > 15)
        fail("immediate " + text + " = " + std::to_string(i) +
             " is out of the small immediate range -16..15; load it with ldi");
    return uint32_t(i < 0 ? i + 32 : i);
}

void instruction_encoder::place_writes(uint64_t& word, write_operand* add_dest, write_operand* mul_dest)
{
    write_operand none;
    write_operand& a = add_dest ? *add_dest : none;
    write_operand& m = mul_dest ? *mul_dest : none;
    // ws = 0: add writes regfile A and mul regfile B; ws = 1 swaps them.
    int ws = -1;
    if (a.on_a && m.on_b)
        ws = 0;
    else if (a.on_b && m.on_a)
        ws = 1;
    else
        fail("write ports conflict: add writes " + a.text + " and mul writes " + m.text +
             "; one must be in regfile A and the other in regfile B");
    WS.set(word, ws);
    WADDR_ADD.set(word, a.addr);
    WADDR_MUL.set(word, m.addr);
    a.in_file_a = ws == 0;
    m.in_file_a = ws == 1;

    // Pack: pm = 0 packs the regfile-A write, pm = 1 the mul ALU result.
    int packs = 0;
    for (write_operand* w : { add_dest, mul_dest }) {
        if (!w || w->pack.empty())
            continue;
        ++packs;
        int code_a = index_of(pack_a_names, 16, w->pack);
        int code_mul = index_of(pack_mul_names, 16, w->pack);
        if (w->in_file_a && w->addr < 32 && code_a > 0) {
            PM.set(word, 0);
            PACK.set(word, uint32_t(code_a));
        } else if (w == mul_dest && code_mul > 0) {
            PM.set(word, 1);
            PACK.set(word, uint32_t(code_mul));
        } else {
            fail("pack ." + w->pack + " is not possible on " + w->text +
                 " (regfile-A writes take 16a 16b 8888 8a-8d 32s 16as 16bs 8888s 8as-8ds; "
                 "the mul ALU result takes 8888 8a-8d)");
        }
    }
    if (packs > 1)
        fail("only one pack per instruction");
}

uint64_t instruction_encoder::encode(const std::string& text)
{
    std::vector<part> parts;
    for (const std::string& piece : split_top(text, ';')) {
        if (piece.empty())
            fail("empty part in '" + text + "'");
        part p;
        size_t space = piece.find_first_of(" \t");
        std::string head = piece.substr(0, space);
        std::string rest = space == std::string::npos ? "" : trim(piece.substr(space));
        size_t dot = head.find('.', 1);
        p.mnemonic = head.substr(0, dot);
        while (dot != std::string::npos) {
            size_t next = head.find('.', dot + 1);
            p.suffixes.push_back(head.substr(dot + 1, next == std::string::npos ? next : next - dot - 1));
            dot = next;
        }
        if (!rest.empty())
            p.operands = split_top(rest, ',');
        parts.push_back(std::move(p));
    }
    const std::string& first = parts[0].mnemonic;
    auto single = [&](const char* what) {
        if (parts.size() != 1)
            fail(std::string(what) + " cannot share an instruction with other parts");
    };
    if (first == ".inst") {
        single(".inst");
        if (parts[0].operands.size() != 1)
            fail(".inst takes one 64-bit value");
        return uint64_t(d_eval(parts[0].operands[0]).integer());
    }
    if (first == "ldi" || first == "ldis" || first == "ldiu")
        return encode_load_immediate(parts);
    if (first == "sacq" || first == "srel") {
        single(first.c_str());
        return encode_semaphore(parts[0]);
    }
    if (first == "bra" || first == "brr") {
        single("a branch");
        return encode_branch(parts[0]);
    }
    return encode_alu(parts);
}

namespace {

/*! The instruction with every field at its assembler default. */
uint64_t default_word(uint32_t sig)
{
    uint64_t w = 0;
    SIG.set(w, sig);
    COND_ADD.set(w, COND_NEVER);
    COND_MUL.set(w, COND_NEVER);
    WADDR_ADD.set(w, W_NOP);
    WADDR_MUL.set(w, W_NOP);
    RADDR_A.set(w, R_NOP);
    RADDR_B.set(w, R_NOP);
    return w;
}

bool is_mul_only(const std::string& name)
{
    int op = index_of(mul_op_names, 8, name);
    return op > 0 && index_of(add_op_names, 32, name) < 0;
}

} // namespace

// An ALU instruction: an optional signal and up to two operations, the add
// ALU's and the mul ALU's, with what their suffixes asked for.
struct instruction_encoder::alu_operation {
    part* p = nullptr;
    uint32_t op = 0;
    bool is_mul = false;
    std::optional<write_operand> dest;
    std::vector<read_operand> sources;
};

struct instruction_encoder::alu_instruction {
    alu_operation halves[2]; // add, mul
    int operations = 0;
    int signal = -1;
    bool setf = false;
    int rotation = -1; // small immediate code 48..63
};

// The read addresses the operands claimed, and the one unpack they share.
struct instruction_encoder::read_ports {
    std::optional<uint32_t> a, b;
    bool b_is_immediate = false;
    std::optional<uint32_t> unpack;
    int unpack_pm = -1;
};

uint64_t instruction_encoder::encode_alu(std::vector<part>& parts)
{
    uint64_t word = default_word(SIG_NONE);
    alu_instruction ins;
    for (part& p : parts)
        if (!take_signal(ins, p))
            add_operation(word, ins, p);
    if (ins.operations == 0 && ins.signal < 0)
        fail("empty instruction");
    read_ports ports = assign_read_ports(word, ins);
    if (ins.rotation >= 0)
        add_rotation(ports, uint32_t(ins.rotation));
    set_reads_and_signal(word, ports, ins.signal);
    place_writes(word, ins.halves[0].dest ? &*ins.halves[0].dest : nullptr,
                 ins.halves[1].dest ? &*ins.halves[1].dest : nullptr);
    if (ports.unpack)
        set_unpack(word, ports);
    if (ins.setf)
        set_flags(word, ins);
    return word;
}

bool instruction_encoder::take_signal(alu_instruction& ins, const part& p)
{
    int sig = index_of(sig_names, 16, p.mnemonic);
    if (sig < 0 || !p.operands.empty() || !p.suffixes.empty())
        return false;
    if (ins.signal >= 0)
        fail("two signals in one instruction (" + std::string(sig_names[ins.signal]) + " and " + p.mnemonic +
             ")");
    ins.signal = sig;
    return true;
}

void instruction_encoder::add_operation(uint64_t& word, alu_instruction& ins, part& p)
{
    alu_operation* halves = ins.halves;
    if (ins.operations == 2 || (ins.operations == 1 && halves[0].is_mul))
        fail("too many operations in one instruction at '" + p.mnemonic + "'");
    bool is_mul = ins.operations == 1 || is_mul_only(p.mnemonic);
    alu_operation& h = halves[is_mul ? 1 : 0];
    h.p = &p;
    h.is_mul = is_mul;
    if (ins.operations == 0 && is_mul)
        halves[0].is_mul = true; // marks "no add part", so no second ALU part
    ++ins.operations;
    std::string name = p.mnemonic;
    bool is_mov = name == "mov";
    if (is_mov)
        name = is_mul ? "v8min" : "or";
    int op = is_mul ? index_of(mul_op_names, 8, name) : index_of(add_op_names, 32, name);
    if (op < 0) {
        if (is_mul && index_of(add_op_names, 32, name) >= 0)
            fail("'" + name + "' is an add ALU op; the second part goes to the mul ALU "
                              "(fmul mul24 v8muld v8min v8max v8adds v8subs mov nop)");
        fail("unknown instruction '" + p.mnemonic + "'");
    }
    h.op = uint32_t(op);
    unsigned inputs = is_mul ? mul_op_operands(h.op) : add_op_operands(h.op);
    unsigned expected = h.op == 0 ? 0 : (is_mov ? 2 : inputs + 1);
    if (p.operands.size() != expected)
        fail("'" + p.mnemonic + "' takes " + std::to_string(expected) + " operands, got " +
             std::to_string(p.operands.size()));
    const uint32_t cond = apply_suffixes(ins, p, is_mul, h.op == 0 ? COND_NEVER : COND_ALWAYS);
    (is_mul ? COND_MUL : COND_ADD).set(word, cond);
    (is_mul ? OP_MUL : OP_ADD).set(word, h.op);
    if (h.op == 0)
        return;
    h.dest = parse_write(p.operands[0]);
    if (is_mov) {
        h.sources.assign(2, parse_read(p.operands[1]));
    } else {
        for (unsigned i = 0; i < inputs; ++i)
            h.sources.push_back(parse_read(p.operands[i + 1]));
    }
}

uint32_t instruction_encoder::apply_suffixes(alu_instruction& ins, const part& p, bool is_mul, uint32_t cond)
{
    for (const std::string& s : p.suffixes) {
        int c = index_of(cond_names, 8, s);
        if (c >= 0 && !s.empty())
            cond = uint32_t(c);
        else if (s == "setf")
            ins.setf = true;
        else if (s == "rotr5" && is_mul)
            ins.rotation = SMALL_IMM_ROTATE_R5;
        else if (s.rfind("rot", 0) == 0 && s.size() > 3 && is_mul) {
            int n = std::atoi(s.c_str() + 3);
            if (n < 1 || n > 15 || s.find_first_not_of("0123456789", 3) != std::string::npos)
                fail("rotation ." + s + " must be rot1..rot15 or rotr5");
            ins.rotation = int(SMALL_IMM_ROTATE_1) + n - 1;
        } else if (s.rfind("rot", 0) == 0)
            fail("vector rotation ." + s + " is only possible on the mul ALU");
        else
            fail("unknown suffix '." + s + "' on " + p.mnemonic);
    }
    return cond;
}

void instruction_encoder::claim_port(std::optional<uint32_t>& port, uint32_t addr, const read_operand& r,
                                     char name)
{
    if (port && *port != addr)
        fail(std::string("read port ") + name + " conflict at " + r.text + ": regfile " + name +
             " can be read only once per instruction");
    port = addr;
}

instruction_encoder::read_ports instruction_encoder::assign_read_ports(uint64_t& word, alu_instruction& ins)
{
    // Fixed-port operands first, then those that fit either.
    read_ports ports;
    const field* mux_fields[2][2] = { { &ADD_A, &ADD_B }, { &MUL_A, &MUL_B } };
    for (int pass = 0; pass < 2; ++pass)
        for (int hi = 0; hi < 2; ++hi)
            for (size_t i = 0; i < ins.halves[hi].sources.size(); ++i) {
                read_operand& r = ins.halves[hi].sources[i];
                bool flexible = r.kind == read_operand::peripheral && r.on_a && r.on_b;
                if (flexible != (pass == 1))
                    continue;
                route_read(word, *mux_fields[hi][i], r, flexible, ports);
                if (r.unpack != UNPACK_NOP) {
                    int pm = r.kind == read_operand::accumulator ? 1 : 0;
                    if (ports.unpack && (*ports.unpack != r.unpack || ports.unpack_pm != pm))
                        fail("two different unpacks in one instruction");
                    ports.unpack = r.unpack;
                    ports.unpack_pm = pm;
                }
            }
    return ports;
}

void instruction_encoder::route_read(uint64_t& word, const field& mux, const read_operand& r, bool flexible,
                                     read_ports& ports)
{
    switch (r.kind) {
    case read_operand::accumulator:
        mux.set(word, r.number);
        break;
    case read_operand::file_a:
        claim_port(ports.a, r.number, r, 'A');
        mux.set(word, MUX_A);
        break;
    case read_operand::file_b:
        if (ports.b_is_immediate)
            fail("regfile B read " + r.text + " and a small immediate or rotation in one instruction");
        claim_port(ports.b, r.number, r, 'B');
        mux.set(word, MUX_B);
        break;
    case read_operand::immediate: {
        if (ports.b && !ports.b_is_immediate)
            fail("small immediate " + r.text + " and a regfile B read in one instruction");
        uint32_t code = small_immediate_code(r.imm, r.text);
        claim_port(ports.b, code, r, 'B');
        ports.b_is_immediate = true;
        mux.set(word, MUX_B);
        break;
    }
    case read_operand::peripheral:
        if (flexible) {
            if (ports.a == r.number || (!ports.a && !(ports.b == r.number && !ports.b_is_immediate)))
                claim_port(ports.a, r.number, r, 'A'), mux.set(word, MUX_A);
            else if (!ports.b_is_immediate && (!ports.b || ports.b == r.number))
                claim_port(ports.b, r.number, r, 'B'), mux.set(word, MUX_B);
            else
                fail("no read port left for " + r.text);
        } else if (r.on_a) {
            claim_port(ports.a, r.number, r, 'A');
            mux.set(word, MUX_A);
        } else {
            if (ports.b_is_immediate)
                fail(r.text + " and a small immediate or rotation in one instruction");
            claim_port(ports.b, r.number, r, 'B');
            mux.set(word, MUX_B);
        }
        break;
    }
}

void instruction_encoder::add_rotation(read_ports& ports, uint32_t rotation)
{
    // The rotation is a small immediate code: it takes read port B.
    if (ports.b && !ports.b_is_immediate)
        fail("vector rotation and a regfile B read in one instruction");
    if (ports.b_is_immediate && *ports.b != rotation &&
        small_immediate_value(*ports.b) != small_immediate_value(rotation))
        fail("vector rotation and a small immediate in one instruction");
    ports.b = rotation;
    ports.b_is_immediate = true;
}

void instruction_encoder::set_reads_and_signal(uint64_t& word, const read_ports& ports, int signal)
{
    if (ports.a)
        RADDR_A.set(word, *ports.a);
    if (ports.b)
        RADDR_B.set(word, *ports.b);
    if (ports.b_is_immediate) {
        if (signal >= 0)
            fail(std::string("signal ") + sig_names[signal] +
                 " cannot go with a small immediate or rotation (they share the signal field)");
        SIG.set(word, SIG_SMALL_IMM);
    } else if (signal >= 0) {
        SIG.set(word, uint32_t(signal));
    }
}

void instruction_encoder::set_unpack(uint64_t& word, const read_ports& ports)
{
    if (PACK.get(word) != 0 && PM.get(word) != uint32_t(ports.unpack_pm))
        fail("this pack and unpack need different pm bits");
    PM.set(word, uint32_t(ports.unpack_pm));
    UNPACK.set(word, *ports.unpack);
}

void instruction_encoder::set_flags(uint64_t& word, const alu_instruction& ins)
{
    const alu_operation& add = ins.halves[0];
    const alu_operation& mul = ins.halves[1];
    if (mul.p && add.op != 0 && mul.op != 0 &&
        std::find(mul.p->suffixes.begin(), mul.p->suffixes.end(), "setf") != mul.p->suffixes.end())
        fail(".setf on the mul op: flags come from the add ALU unless it is nop");
    SF.set(word, 1);
}

uint64_t instruction_encoder::encode_load_immediate(std::vector<part>& parts)
{
    if (parts.size() > 2)
        fail("a load immediate has at most two destinations (add and mul parts)");
    uint64_t word = default_word(SIG_LOAD_IMM);
    const std::string& mode = parts[0].mnemonic;
    LDI_MODE.set(word, mode == "ldi" ? LDI_32 : mode == "ldis" ? LDI_PER_ELEMENT_SIGNED
                                                               : LDI_PER_ELEMENT_UNSIGNED);
    std::optional<write_operand> dests[2];
    std::optional<uint32_t> immediate;
    for (size_t i = 0; i < parts.size(); ++i) {
        part& p = parts[i];
        if (p.mnemonic != mode)
            fail("'" + p.mnemonic + "' cannot go with " + mode);
        if (p.operands.size() != 2)
            fail(mode + " takes a destination and a value");
        uint32_t cond = COND_ALWAYS;
        for (const std::string& s : p.suffixes) {
            int c = index_of(cond_names, 8, s);
            if (c >= 0 && !s.empty())
                cond = uint32_t(c);
            else if (s == "setf" && i == 0)
                SF.set(word, 1);
            else
                fail("unknown suffix '." + s + "' on " + mode);
        }
        (i == 0 ? COND_ADD : COND_MUL).set(word, cond);
        dests[i] = parse_write(p.operands[0]);
        uint32_t bits = 0;
        const std::string& v = p.operands[1];
        if (mode == "ldi") {
            value val = d_eval(v);
            if (!val.is_float && (val.integer_value < -(int64_t(1) << 31) || val.integer_value >= (int64_t(1) << 32)))
                fail("immediate " + v + " does not fit 32 bits");
            bits = val.bits();
        } else {
            if (v.size() < 2 || v.front() != '[' || v.back() != ']')
                fail(mode + " takes a list of 16 per-element values: [v0, ..., v15]");
            std::vector<std::string> items = split_top(v.substr(1, v.size() - 2), ',');
            if (items.size() != SIMD_WIDTH)
                fail(mode + " needs 16 values, got " + std::to_string(items.size()));
            bool is_signed = mode == "ldis";
            for (unsigned e = 0; e < SIMD_WIDTH; ++e) {
                int64_t x = d_eval(items[e]).integer();
                if (is_signed ? (x < -2 || x > 1) : (x < 0 || x > 3))
                    fail("per-element value " + items[e] + " out of range " + (is_signed ? "-2..1" : "0..3"));
                bits |= uint32_t(x & 1) << e;
                bits |= uint32_t((x >> 1) & 1) << (16 + e);
            }
        }
        if (immediate && *immediate != bits)
            fail("both parts of a load immediate write the same value");
        immediate = bits;
    }
    IMMEDIATE.set(word, *immediate);
    place_writes(word, &*dests[0], dests[1] ? &*dests[1] : nullptr);
    return word;
}

uint64_t instruction_encoder::encode_semaphore(const part& p)
{
    if (!p.suffixes.empty() || p.operands.size() != 1)
        fail(p.mnemonic + " takes one semaphore number");
    int64_t id = d_eval(p.operands[0]).integer();
    if (id < 0 || id >= int64_t(NUM_SEMAPHORES))
        fail("semaphore " + p.operands[0] + " out of range 0..15");
    uint64_t word = default_word(SIG_LOAD_IMM);
    LDI_MODE.set(word, LDI_SEMAPHORE);
    RADDR_A.set(word, 0);
    RADDR_B.set(word, 0);
    SEMA_ID.set(word, uint32_t(id));
    SEMA_ACQUIRE.set(word, p.mnemonic == "sacq");
    return word;
}

uint64_t instruction_encoder::encode_branch(const part& p)
{
    uint64_t word = default_word(SIG_BRANCH);
    IMMEDIATE.set(word, 0);
    COND_BR.set(word, BR_ALWAYS);
    BRANCH_RADDR_A.set(word, 0);
    for (const std::string& s : p.suffixes) {
        int c = index_of(cond_br_names, 16, s);
        if (c < 0 || s.empty())
            fail("unknown branch condition '." + s + "'");
        COND_BR.set(word, uint32_t(c));
    }
    const std::vector<std::string>& ops = p.operands;
    if (ops.empty() || ops.size() > 3)
        fail(p.mnemonic + " takes [link,] target [, raN]");
    uint32_t reg;
    size_t target = (ops.size() == 3 || (ops.size() == 2 && !parse_numbered(ops[1], "ra", 32, reg))) ? 1 : 0;
    std::optional<write_operand> link;
    if (target == 1) {
        link = parse_write(ops[0]);
        if (!link->pack.empty())
            fail("a branch link cannot be packed");
    }
    if (ops.size() == target + 2) {
        if (!parse_numbered(ops[target + 1], "ra", 32, reg))
            fail("branch offset register must be ra0..ra31, not " + ops[target + 1]);
        BRANCH_REG.set(word, 1);
        BRANCH_RADDR_A.set(word, reg);
    }
    int64_t destination = d_eval(ops[target]).integer();
    if (p.mnemonic == "brr") {
        BRANCH_REL.set(word, 1);
        // Relative to the instruction after the three delay slots.
        int64_t offset = destination - (d_eval(".").integer() + (1 + BRANCH_DELAY_SLOTS) * INSTRUCTION_BYTES);
        if (offset < INT32_MIN || offset > INT32_MAX)
            fail("branch target out of range");
        IMMEDIATE.set(word, uint32_t(offset));
    } else {
        if (destination < INT32_MIN || destination > int64_t(UINT32_MAX))
            fail("branch address does not fit 32 bits");
        IMMEDIATE.set(word, uint32_t(destination));
    }
    place_writes(word, link ? &*link : nullptr, nullptr);
    return word;
}

} // namespace qpu::isa::syntax
