// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: DAG nodes, constants, and the lazy-coefficient algebra. */
#include "dag.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace cgen {

cplx operator*(cplx a, cplx b) { return { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re }; }

cplx operator/(cplx a, cplx b)
{
    const real d = b.re * b.re + b.im * b.im;
    return { (a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d };
}

real snap(real v)
{
    // Distinct constants of these transforms differ by far more than 1e-15;
    // rounding in long double arithmetic stays far below it.
    static std::vector<real> table = { 0, 1 };
    const real m = std::fabs(v);
    for (real t : table)
        if (std::fabs(m - t) <= 1e-15L * std::max<real>(1, m))
            return v < 0 ? -t : t;
    table.push_back(m);
    return v < 0 ? -m : m;
}

cplx snap(cplx c) { return { snap(c.re), snap(c.im) }; }
bool is_zero(cplx c) { return c.re == 0 && c.im == 0; }
bool is_unit(cplx c)
{
    return (std::fabs(c.re) == 1 && c.im == 0) || (c.re == 0 && std::fabs(c.im) == 1);
}

cplx twiddle(long m, long n, int sign)
{
    m %= n;
    if (m < 0)
        m += n;
    const real a = 2 * std::acos(real(-1)) * real(m) / real(n);
    return snap(cplx{ std::cos(a), sign * std::sin(a) });
}

int Dag::make(Op op, int a, int b, cplx k)
{
    if (op == Op::Add && a > b)
        std::swap(a, b); // commutative: one node for a+b and b+a
    const auto key = std::make_tuple(int(op), a, b, k.re, k.im);
    auto it = d_memo.find(key);
    if (it != d_memo.end())
        return it->second;
    d_nodes.push_back({ op, a, b, k });
    d_memo.emplace(key, size() - 1);
    return size() - 1;
}

Val scale(Val v, cplx c)
{
    v.coef = snap(v.coef * c);
    if (is_zero(v.coef))
        v.node = -1;
    return v;
}

namespace {

/* coef * n as a node and a sign, so that a negative result can be folded into
 * the vadd/vsub that consumes it. The coefficient is written as u * c with u a
 * unit and c in the sector -pi/4 < arg c <= pi/4; nodes are built for c, and u
 * becomes a vmul_i and/or the sign. Then w*x and (i*w)*x share one vcmul. */
std::pair<int, bool> mat_signed(Dag& d, int n, cplx coef)
{
    if (is_zero(coef))
        std::abort(); // zero terms are dropped before they get here
    int u = 0; // coef = i^u * c
    cplx c = coef;
    while (!(c.re > 0 && c.im <= c.re && c.im > -c.re)) {
        c = { c.im, -c.re }; // divide by i (exact)
        ++u;
    }
    int base;
    if (c.im == 0)
        base = c.re == 1 ? n : d.make(Op::Scale, n, -1, { c.re, 0 });
    else if (c.im == c.re) { // r (1 + i): one vadd and one vscale, not a vcmul
        base = d.make(Op::Add, n, d.make(Op::MulI, n));
        if (c.re != 1)
            base = d.make(Op::Scale, base, -1, { c.re, 0 });
    } else
        base = d.make(Op::CMul, n, -1, c);
    if (u & 1)
        base = d.make(Op::MulI, base);
    return { base, u >= 2 };
}

// (-1)^na * a + (-1)^nb * b, as a node times +-1.
Val combine(Dag& d, int a, bool na, int b, bool nb)
{
    if (!na && !nb)
        return { d.make(Op::Add, a, b), { 1, 0 } };
    if (!na)
        return { d.make(Op::Sub, a, b), { 1, 0 } };
    if (!nb)
        return { d.make(Op::Sub, b, a), { 1, 0 } };
    return { d.make(Op::Add, a, b), { -1, 0 } };
}

Val add2(Dag& d, Val x, Val y)
{
    if (x.node < 0)
        return y;
    if (y.node < 0)
        return x;
    const cplx r = snap(y.coef / x.coef);
    if (is_unit(x.coef) || is_unit(r)) { // x.coef * (x + r y), r cheap or x.coef free
        const auto [b, nb] = mat_signed(d, y.node, r);
        return scale(combine(d, x.node, false, b, nb), x.coef);
    }
    if (is_unit(y.coef))
        return add2(d, y, x);
    // Two unrelated non-trivial coefficients: build both products (factoring
    // one out would cost a third multiplication when the sum is used).
    const auto [a, na] = mat_signed(d, x.node, x.coef);
    const auto [b, nb] = mat_signed(d, y.node, y.coef);
    return combine(d, a, na, b, nb);
}

} // namespace

Val sum(Dag& d, std::vector<Val> terms)
{
    std::vector<Val> t; // one term per node
    for (const Val& v : terms) {
        if (v.node < 0)
            continue;
        auto it = std::find_if(t.begin(), t.end(), [&](const Val& w) { return w.node == v.node; });
        if (it == t.end())
            t.push_back(v);
        else
            it->coef = snap(cplx{ it->coef.re + v.coef.re, it->coef.im + v.coef.im });
    }
    // Groups of terms whose coefficients are unit multiples of each other.
    std::vector<std::vector<Val>> groups;
    for (const Val& v : t) {
        if (is_zero(v.coef))
            continue;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const std::vector<Val>& g) {
            return is_unit(snap(v.coef / g[0].coef));
        });
        if (g == groups.end())
            groups.push_back({ v });
        else
            g->push_back(v);
    }
    Val acc;
    for (const auto& g : groups) {
        Val gs;
        for (const Val& v : g)
            gs = add2(d, gs, v); // unit ratios: only vadd/vsub/vmul_i
        acc = add2(d, acc, gs);
    }
    return acc;
}

int materialize(Dag& d, Val v)
{
    if (v.node < 0)
        std::abort(); // a DFT output is never identically zero
    const auto [n, negative] = mat_signed(d, v.node, v.coef);
    if (!negative)
        return n;
    // Push the sign into the node itself where that is free.
    const Node x = d[n];
    switch (x.op) {
    case Op::Sub:
        return d.make(Op::Sub, x.b, x.a);
    case Op::MulI:
        return d.make(Op::MulNegI, x.a);
    case Op::Scale:
    case Op::CMul:
        return d.make(x.op, x.a, -1, -x.k);
    default:
        return d.make(Op::Scale, n, -1, { -1, 0 }); // not reached by the DFTs here
    }
}

} // namespace cgen
