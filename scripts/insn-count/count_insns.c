// SPDX-License-Identifier: GPL-3.0-or-later
/* A qemu-user TCG plugin that counts the guest instructions a program
 * executes and prints the total at exit ("insns N"), for
 * scripts/arm-insn-count.sh; with the argument blocks=on (-plugin
 * count_insns.so,blocks=on) also each translated block's address, length
 * and executions ("block VADDR N TIMES"), for scripts/insn-count/pass_costs.py.
 * Debian 12's qemu-user 7.2 loads plugins (-plugin) but ships none and no
 * plugin header, so the few entry points used here are declared below as
 * plugin API version 1 defines them. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* not read here */
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb*));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void*),
                                    void* userdata);
void qemu_plugin_outs(const char* string);

EXPORT int qemu_plugin_version = 1;

/* One thread (the driver plans with threads = 1): plain counters are exact. */
static uint64_t executed;

/* blocks=on: one record per translation, its counter allocated once and
 * never moved (the inline add holds its address). */
struct block {
    uint64_t vaddr, length, times;
    struct block* next;
};
static struct block* blocks;
static int per_block;

/* At translation, each block gets an inline add of its length, run every
 * time the block executes (and with blocks=on, one of 1 to its record). */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
                                             qemu_plugin_tb_n_insns(tb));
    if (per_block) {
        struct block* b = calloc(1, sizeof *b);
        if (!b)
            abort();
        b->vaddr = qemu_plugin_tb_vaddr(tb);
        b->length = qemu_plugin_tb_n_insns(tb);
        b->next = blocks;
        blocks = b;
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->times, 1);
    }
}

static void report_total(qemu_plugin_id_t id, void* userdata)
{
    (void)id;
    (void)userdata;
    char line[96];
    snprintf(line, sizeof line, "insns %" PRIu64 "\n", executed);
    qemu_plugin_outs(line);
    for (const struct block* b = blocks; b; b = b->next)
        if (b->times) {
            snprintf(line, sizeof line, "block %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->vaddr,
                     b->length, b->times);
            qemu_plugin_outs(line);
        }
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv)
{
    (void)info;
    for (int i = 0; i < argc; ++i)
        per_block |= strcmp(argv[i], "blocks=on") == 0;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, report_total, NULL);
    return 0;
}
