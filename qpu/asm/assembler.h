// SPDX-License-Identifier: GPL-3.0-or-later
/* Assembler and disassembler for VideoCore IV QPU code in our own syntax
 * (qpu/README.md describes it). */
#ifndef QPU_ASM_ASSEMBLER_H
#define QPU_ASM_ASSEMBLER_H

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace qpu::assembler {

/*! A bad program: the message starts with "file:line: ". */
class error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct program {
    std::vector<uint64_t> code;
    /*! Labels (byte offsets from the program start) and .set constants. */
    std::map<std::string, int64_t> symbols;
};

struct options {
    std::vector<std::string> include_dirs; //!< searched after the including file's folder
    std::map<std::string, int64_t> defines; //!< symbols set before the first line
};

/*! Assembles `source`; `name` is used in error messages and to resolve
 * relative .include paths. Throws error. */
program assemble(const std::string& source, const std::string& name = "<input>",
                 const options& opts = {});
program assemble_file(const std::string& path, const options& opts = {});

/*! One instruction as a line of our syntax. Words our syntax cannot express
 * exactly come out as `.inst 0x...` so that the text always reassembles to
 * the same word. Relative branch targets print as `. + offset`. */
std::string disassemble(uint64_t word);
/*! A program, one line per instruction, branch targets as labels. */
std::string disassemble(const std::vector<uint64_t>& code);

} // namespace qpu::assembler

#endif
