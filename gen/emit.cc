// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: lowering to the primitives, operation counts, C++ output. */
#include "emit.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

namespace cgen {

namespace {

// How many times each node is used by the nodes reachable from `out`, plus
// once per output stored. Unreached nodes keep 0.
std::vector<int> use_counts(const Dag& d, const std::vector<int>& out)
{
    std::vector<int> uses(d.size(), 0);
    std::vector<bool> seen(d.size(), false);
    std::function<void(int)> visit = [&](int id) {
        if (seen[id])
            return;
        seen[id] = true;
        const Node& x = d[id];
        if (x.op == Op::In)
            return;
        for (int c : { x.a, x.b })
            if (c >= 0) {
                ++uses[c];
                visit(c);
            }
    };
    for (int o : out) {
        ++uses[o];
        visit(o);
    }
    return uses;
}

} // namespace

Codelet lower(const Dag& d, const std::vector<int>& out, int n, bool forward)
{
    const std::vector<int> uses = use_counts(d, out);
    Codelet c;
    c.n = n;
    c.forward = forward;
    Dag& l = c.dag;
    std::vector<int> memo(d.size(), -1);
    std::function<int(int)> low;

    /* i^u * id (u = +-1) as a lowered node times (neg ? -1 : 1). Elaboration
     * keeps unit factors outside shared products so that w*z and i*w*z share
     * one vcmul; where the product has no other use, the unit goes into it:
     *   i^u vcmul(z, c)      = vcmul(z, i^u c)
     *   i^u vscale(y, r)     = vscale(i^u y, r)
     *   i^u (+-z +-i z)      = (+-z +-i z), the vadd/vsub that forms (1+-i)/sqrt2
     *   i^u (i^-u z)         = z */
    std::function<std::pair<int, bool>(int, int)> rot = [&](int u, int id) -> std::pair<int, bool> {
        const Node& x = d[id];
        const Op mul = u > 0 ? Op::MulI : Op::MulNegI;
        if ((x.op == Op::MulI && u < 0) || (x.op == Op::MulNegI && u > 0))
            return { low(x.a), false };
        if (uses[id] == 1 && x.op == Op::CMul)
            return { l.make(Op::CMul, low(x.a), -1, snap(x.k * cplx{ 0, real(u) })), false };
        if (uses[id] == 1 && x.op == Op::Scale) {
            const auto [y, neg] = rot(u, x.a);
            return { l.make(Op::Scale, y, -1, { neg ? -x.k.re : x.k.re, 0 }), false };
        }
        if (uses[id] == 1 && (x.op == Op::Add || x.op == Op::Sub)) {
            // x = p z + q (i z), p, q = +-1?
            int z = -1, p = 1, q = 1;
            if (d[x.b].op == Op::MulI && d[x.b].a == x.a)
                z = x.a, q = x.op == Op::Sub ? -1 : 1;
            else if (d[x.a].op == Op::MulI && d[x.a].a == x.b)
                z = x.b, p = x.op == Op::Sub ? -1 : 1;
            if (z >= 0) {
                // i^u (p z + q i z) = p' z + q' i z
                const int p2 = u > 0 ? -q : q, q2 = u > 0 ? p : -p;
                const int lz = low(z), iz = l.make(Op::MulI, lz);
                if (p2 > 0)
                    return { l.make(q2 > 0 ? Op::Add : Op::Sub, lz, iz), false };
                return q2 > 0 ? std::make_pair(l.make(Op::Sub, iz, lz), false)
                              : std::make_pair(l.make(Op::Add, lz, iz), true);
            }
        }
        return { l.make(mul, low(id)), false };
    };

    // A single-use product y * k (a vscale, or a unit times one) that can
    // become the multiplication of a vfmadd/vfnmadd.
    auto fusable = [&](int id, int& y, real& k) {
        const Node& x = d[id];
        if (uses[id] != 1)
            return false;
        if (x.op == Op::Scale) {
            y = low(x.a);
            k = x.k.re;
            return true;
        }
        if ((x.op == Op::MulI || x.op == Op::MulNegI) && d[x.a].op == Op::Scale && uses[x.a] == 1) {
            const auto [ry, neg] = rot(x.op == Op::MulI ? 1 : -1, d[x.a].a);
            y = ry;
            k = neg ? -d[x.a].k.re : d[x.a].k.re;
            return true;
        }
        return false;
    };

    low = [&](int id) -> int {
        if (memo[id] >= 0)
            return memo[id];
        const Node& x = d[id];
        int y, r;
        real k;
        if (x.op == Op::In)
            r = l.input(x.a);
        else if (x.op == Op::Add && fusable(x.b, y, k))
            r = l.make(Op::Fma, y, low(x.a), { k, 0 });
        else if (x.op == Op::Add && fusable(x.a, y, k))
            r = l.make(Op::Fma, y, low(x.b), { k, 0 });
        else if (x.op == Op::Sub && fusable(x.b, y, k))
            r = l.make(Op::Fnma, y, low(x.a), { k, 0 });
        else if (x.op == Op::MulI || x.op == Op::MulNegI) {
            const auto [ry, neg] = rot(x.op == Op::MulI ? 1 : -1, x.a);
            r = neg ? l.make(x.op, low(x.a)) : ry;
        } else
            r = l.make(x.op, low(x.a), x.b < 0 ? -1 : low(x.b), x.k);
        return memo[id] = r;
    };
    for (int o : out)
        c.out.push_back(low(o));
    // Schedule in the order elaboration built the nodes (inputs first, then
    // sub-transform by sub-transform as the algorithm runs): few values are
    // live at a time, and compilers spill far less than after a depth-first
    // walk from the outputs (n = 32, AVX2: 61 stack accesses instead of 196).
    for (int id = 0; id < d.size(); ++id)
        if (memo[id] >= 0)
            c.order.push_back(memo[id]);
    return c;
}

Counts count(const Codelet& c)
{
    const std::vector<int> uses = use_counts(c.dag, c.out);
    Counts k;
    for (int id = 0; id < c.dag.size(); ++id) {
        if (uses[id] == 0)
            continue;
        switch (c.dag[id].op) {
        case Op::Add:
        case Op::Sub:
            ++k.add;
            break;
        case Op::Scale:
            ++k.scale;
            break;
        case Op::Fma:
        case Op::Fnma:
            ++k.fma;
            break;
        case Op::MulI:
        case Op::MulNegI:
            ++k.muli;
            break;
        case Op::CMul:
            ++k.cmul;
            break;
        case Op::In:
            break;
        }
    }
    return k;
}

namespace {

/* A real constant for the ISA's float primitives. GPUFFT_K spells it (a float
 * literal by default). 19 digits are what long double computed (0.5 - 3e-20
 * prints as 0.5) and far more than float or double keep, so the compiler
 * rounds the exact value once, and the double self-test sees it unrounded. */
std::string constant(real v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.19Lg", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0"; // 1f is not a literal, 1.0f is
    return "GPUFFT_K(" + s + ")";
}

} // namespace

void emit(std::ostream& os, const Codelet& c)
{
    const std::vector<int> uses = use_counts(c.dag, c.out);
    // x + i y and x - i y (an Add or Sub with a vmul_i or vmul_neg_i operand)
    // become vadd_i(x, y) and vsub_i(x, y): on AVX2 and AVX-512 one shuffle of
    // y, shared by the pair x +- i y, and one fmaddsub/fmsubadd each, where
    // vmul_i then vadd/vsub also flips signs. A rotation whose every use is
    // folded this way is not emitted at all.
    struct RotatedSum {
        int x, y;
        bool plus;
    };
    auto rotated_sum = [&](int id, RotatedSum& f) {
        const Node& n = c.dag[id];
        auto rotation = [&](int o) { return c.dag[o].op == Op::MulI || c.dag[o].op == Op::MulNegI; };
        if (n.op != Op::Add && n.op != Op::Sub)
            return false;
        if (rotation(n.b))
            f = { n.a, c.dag[n.b].a, (n.op == Op::Add) == (c.dag[n.b].op == Op::MulI) };
        else if (n.op == Op::Add && rotation(n.a))
            f = { n.b, c.dag[n.a].a, c.dag[n.a].op == Op::MulI };
        else
            return false;
        return true;
    };
    // The operands as emitted.
    auto operands = [&](int id) -> std::pair<int, int> {
        RotatedSum f;
        if (rotated_sum(id, f))
            return { f.x, f.y };
        return { c.dag[id].a, c.dag[id].b };
    };
    std::vector<int> unfolded_uses = uses;
    int folded = 0;
    for (int id = 0; id < c.dag.size(); ++id) {
        RotatedSum f;
        if (uses[id] > 0 && rotated_sum(id, f)) {
            const Node& n = c.dag[id];
            const int rot = c.dag[n.b].op == Op::MulI || c.dag[n.b].op == Op::MulNegI ? n.b : n.a;
            if (--unfolded_uses[rot] == 0)
                ++folded;
        }
    }
    const Counts k = count(c);
    const char* dir = c.forward ? "true" : "false";
    os << "// n1<" << c.n << ", " << dir << ">: " << k.add << " vadd/vsub, " << k.scale
       << " vscale, " << k.fma << " vfmadd/vfnmadd, " << k.muli << " vmul_i, " << k.cmul
       << " vcmul = " << k.real_adds() << " real adds, " << k.real_muls() << " real muls";
    if (folded)
        os << "; " << folded << " vmul_i folded into vadd_i/vsub_i";
    os << "\n";
    os << "template <> struct n1<" << c.n << ", " << dir << "> {\n";
    os << "    template <class Load, class Store>\n";
    os << "    static GPUFFT_INLINE void run(const Load& load, const Store& store)\n    {\n";

    std::vector<std::string> name(c.dag.size());
    int temps = 0;
    std::function<std::string(int)> expr;
    std::function<const std::string&(int)> value = [&](int id) -> const std::string& {
        if (name[id].empty()) {
            const std::string e = expr(id);
            if (c.dag[id].op == Op::In) {
                name[id] = e; // loaded where first used
                os << "        const V " << e << " = load(" << c.dag[id].a << ");\n";
            } else {
                name[id] = "t" + std::to_string(temps++);
                os << "        const V " << name[id] << " = " << e << ";\n";
            }
        }
        return name[id];
    };
    expr = [&](int id) -> std::string {
        const Node& x = c.dag[id];
        if (x.op == Op::In)
            return "x" + std::to_string(x.a);
        RotatedSum f;
        if (rotated_sum(id, f)) {
            const std::string a = value(f.x);
            return (f.plus ? "vadd_i(" : "vsub_i(") + a + ", " + value(f.y) + ")";
        }
        const std::string a = value(x.a); // operands first, in a fixed order
        const std::string b = x.b >= 0 ? value(x.b) : "";
        const std::string k = constant(x.k.re);
        switch (x.op) {
        case Op::Add:
            return "vadd(" + a + ", " + b + ")";
        case Op::Sub:
            return "vsub(" + a + ", " + b + ")";
        case Op::Scale:
            return "vscale(" + a + ", " + k + ")";
        case Op::MulI:
            return "vmul_i(" + a + ")";
        case Op::MulNegI:
            return "vmul_neg_i(" + a + ")";
        case Op::CMul:
            return "vcmul(" + a + ", " + k + ", " + constant(x.k.im) + ")";
        case Op::Fma:
            return "vfmadd(" + a + ", " + k + ", " + b + ")";
        case Op::Fnma:
            return "vfnmadd(" + a + ", " + k + ", " + b + ")";
        case Op::In:
            break;
        }
        return {};
    };
    // Out of place, an output is stored as soon as it is known, and a value
    // used only by its store is computed straight into it: few values live.
    std::vector<bool> stored(c.n, false);
    auto store = [&](int j, const std::string& v) {
        os << "        store(" << j << ", " << v << ");\n";
        stored[j] = true;
    };
    auto store_ready = [&] {
        for (int j = 0; j < c.n; ++j) {
            const int id = c.out[j];
            const auto [a, b] = operands(id);
            const bool inline_ok = c.dag[id].op != Op::In && name[id].empty() && uses[id] == 1 &&
                                   !name[a].empty() && (b < 0 || !name[b].empty());
            if (!stored[j] && (!name[id].empty() || inline_ok))
                store(j, inline_ok ? expr(id) : name[id]);
        }
    };
    for (int id : c.order) {
        if (c.dag[id].op == Op::In || unfolded_uses[id] == 0)
            continue; // loaded where first used; folded into vadd_i/vsub_i
        const bool inline_later = uses[id] == 1 &&
                                  std::find(c.out.begin(), c.out.end(), id) != c.out.end();
        if (!inline_later) {
            value(id);
        } else {
            const auto [a, b] = operands(id);
            for (int op : { a, b })
                if (op >= 0)
                    value(op);
        }
        store_ready();
    }
    for (int j = 0; j < c.n; ++j) // outputs that are inputs unchanged
        if (!stored[j])
            store(j, value(c.out[j]));
    os << "    }\n";
    // In place: every input read before the first store.
    os << "    static GPUFFT_INLINE void run(V* x)\n    {\n";
    os << "        V in[" << c.n << "];\n";
    os << "        for (int j = 0; j < " << c.n << "; ++j)\n            in[j] = x[j];\n";
    os << "        run(codelet_array_load{ in }, codelet_array_store{ x });\n";
    os << "    }\n};\n";
}

} // namespace cgen
