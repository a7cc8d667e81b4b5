// SPDX-License-Identifier: GPL-3.0-or-later
/* Internals shared by the assembler and the disassembler: expressions,
 * register names and the encoder of one instruction line. */
#ifndef QPU_ISA_SYNTAX_H
#define QPU_ISA_SYNTAX_H

#include "qpu_isa.h"
#include "text.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qpu::isa::syntax {

/*! An expression's value: an integer, or a float from a literal like 0.5. */
struct value {
    bool is_float = false;
    double real = 0;
    int64_t integer_value = 0;

    int64_t integer() const; //!< throws syntax_error if the value is a float
    uint32_t bits() const;   //!< the 32-bit word (float bits for floats)
};

/*! Evaluates an expression: integers (12, 0x1f, 0b101), float literals
 * (1.5, 2e-3), symbols, `.` (the current instruction's byte address),
 * unary - + ~, * / %, + -, << >>, &, ^, |, parentheses. When `strict` is
 * false unknown symbols read 0 (the label pass). */
value evaluate(const std::string& text, const std::map<std::string, int64_t>& symbols,
               int64_t dot, bool strict, const std::string& where);

std::string trim(const std::string& s);
/*! Splits at `separator` outside brackets and parentheses; parts trimmed. */
std::vector<std::string> split_top(const std::string& s, char separator);

/*! True for names that cannot be labels or constants (r0, ra3, unif, ...). */
bool is_register_name(const std::string& name);

/*! Encodes one instruction line (no label) into a 64-bit word. */
class instruction_encoder
{
public:
    using evaluator = std::function<value(const std::string&)>;
    instruction_encoder(std::string where, evaluator eval)
        : d_where(std::move(where)), d_eval(std::move(eval))
    {
    }
    uint64_t encode(const std::string& text);

private:
    struct part;
    struct read_operand;
    struct write_operand;
    struct alu_operation;
    struct alu_instruction;
    struct read_ports;

    [[noreturn]] void fail(const std::string& message) const;
    // An ALU instruction, in the order encode_alu takes these steps.
    uint64_t encode_alu(std::vector<part>& parts);
    bool take_signal(alu_instruction& ins, const part& p);
    void add_operation(uint64_t& word, alu_instruction& ins, part& p);
    uint32_t apply_suffixes(alu_instruction& ins, const part& p, bool is_mul, uint32_t cond);
    read_ports assign_read_ports(uint64_t& word, alu_instruction& ins);
    void route_read(uint64_t& word, const isa::field& mux, const read_operand& r, bool flexible, read_ports& ports);
    void claim_port(std::optional<uint32_t>& port, uint32_t addr, const read_operand& r, char name);
    void add_rotation(read_ports& ports, uint32_t rotation);
    void set_reads_and_signal(uint64_t& word, const read_ports& ports, int signal);
    void set_unpack(uint64_t& word, const read_ports& ports);
    void set_flags(uint64_t& word, const alu_instruction& ins);
    uint64_t encode_load_immediate(std::vector<part>& parts);
    uint64_t encode_semaphore(const part& p);
    uint64_t encode_branch(const part& p);
    read_operand parse_read(const std::string& text);
    write_operand parse_write(const std::string& text);
    uint32_t small_immediate_code(const value& v, const std::string& text);
    void place_writes(uint64_t& word, write_operand* add_dest, write_operand* mul_dest);

    std::string d_where;
    evaluator d_eval;
};

} // namespace qpu::isa::syntax

#endif
