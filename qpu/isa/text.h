// SPDX-License-Identifier: GPL-3.0-or-later
/* VideoCore IV QPU instructions as text, in our syntax (qpu/README.md): the
 * disassembler, and the error the syntax reports. The assembler (qpu/asm)
 * adds programs on top: labels, directives, includes. */
#ifndef QPU_ISA_TEXT_H
#define QPU_ISA_TEXT_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace qpu::isa {

/*! A line that is not an instruction: the message starts with "file:line: ". */
class syntax_error : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/*! One instruction as a line of our syntax. Words our syntax cannot express
 * exactly come out as `.inst 0x...` so that the text always reassembles to
 * the same word. Relative branch targets print as `. + offset`. */
std::string disassemble(uint64_t word);
/*! A program, one line per instruction, branch targets as labels. */
std::string disassemble(const std::vector<uint64_t>& code);

} // namespace qpu::isa

#endif
