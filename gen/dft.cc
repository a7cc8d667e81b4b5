// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: elaboration of small DFTs into the DAG, and the search
 * over algorithms. All arithmetic goes through sum() and scale() on Vals, so
 * twiddles of 1, -1, +-i, (+-1 +-i)/sqrt2 and repeated constants cost what
 * they should without any algorithm having to special-case them. */
#include "dft.h"

#include <map>
#include <numeric>
#include <utility>

namespace cgen {

namespace {

enum class Alg {
    Direct,      // the definition; used for n = 2 only
    Odd,         // odd n: pairs x_j +- x_(n-j), cosine and sine sums
    OddCentered, // the same with the mean cosine taken out (n = 5: 4 fewer muls)
    CT,          // Cooley-Tukey n = p * (n/p), twiddles between the stages
    PFA,         // Good-Thomas n = p * q, p and q coprime: no twiddles at all
    Split,       // split radix: n/2 on even inputs, n/4 on 1 and 3 mod 4
};

struct Plan {
    Alg alg;
    int p = 0; // the first-stage size, for CT and PFA
};

using Vals = std::vector<Val>;

const Plan& best_plan(int n, int sign);
Vals dft(Dag& d, const Vals& x, int sign, Plan plan);

Vals dft(Dag& d, const Vals& x, int sign)
{
    const int n = int(x.size());
    return n == 1 ? x : dft(d, x, sign, best_plan(n, sign));
}

Vals direct(Dag& d, const Vals& x, int sign)
{
    const int n = int(x.size());
    Vals y(n);
    for (int k = 0; k < n; ++k) {
        Vals t;
        for (int j = 0; j < n; ++j)
            t.push_back(scale(x[j], twiddle(long(j) * k, n, sign)));
        y[k] = sum(d, t);
    }
    return y;
}

/* y_k     = A_k + s i B_k,  y_(n-k) = A_k - s i B_k, with
 * A_k = x_0 + sum_j cos(2 pi jk/n) a_j,  B_k = sum_j sin(2 pi jk/n) b_j,
 * a_j = x_j + x_(n-j),  b_j = x_j - x_(n-j),  j = 1 .. (n-1)/2.
 * Centered: the cosines of each k average mu = -1/(n-1), so
 * A_k = (x_0 + mu S) + sum_j (cos - mu) a_j with S = sum_j a_j, shared by all
 * k; for n = 5 the centered weights are +-sqrt5/4 and sum() factors them. */
Vals odd(Dag& d, const Vals& x, int sign, bool centered)
{
    const int n = int(x.size()), h = (n - 1) / 2;
    const real mu = centered ? real(-1) / (n - 1) : 0;
    Vals a(h + 1), b(h + 1);
    Val s;
    for (int j = 1; j <= h; ++j) {
        a[j] = sum(d, { x[j], x[n - j] });
        b[j] = sum(d, { x[j], neg(x[n - j]) });
        s = sum(d, { s, a[j] });
    }
    Vals y(n);
    y[0] = sum(d, { x[0], s });
    const Val base = sum(d, { x[0], scale(s, { mu, 0 }) });
    for (int k = 1; k <= h; ++k) {
        Vals ta{ base }, tb;
        for (int j = 1; j <= h; ++j) {
            const cplx w = twiddle(long(j) * k, n, 1);
            ta.push_back(scale(a[j], { w.re - mu, 0 }));
            tb.push_back(scale(b[j], { w.im, 0 }));
        }
        const Val A = sum(d, ta), B = sum(d, tb);
        y[k] = sum(d, { A, scale(B, { 0, real(sign) }) });
        y[n - k] = sum(d, { A, scale(B, { 0, real(-sign) }) });
    }
    return y;
}

/* n = p q, input j = q j1 + j2, output k = k1 + p k2:
 * X[k1 + p k2] = sum_j2 w_q^(j2 k2) [w_n^(j2 k1) sum_j1 w_p^(j1 k1) x[q j1 + j2]]. */
Vals cooley_tukey(Dag& d, const Vals& x, int sign, int p)
{
    const int n = int(x.size()), q = n / p;
    std::vector<Vals> y(q);
    for (int j2 = 0; j2 < q; ++j2) {
        Vals col;
        for (int j1 = 0; j1 < p; ++j1)
            col.push_back(x[q * j1 + j2]);
        y[j2] = dft(d, col, sign);
    }
    Vals out(n);
    for (int k1 = 0; k1 < p; ++k1) {
        Vals row;
        for (int j2 = 0; j2 < q; ++j2)
            row.push_back(scale(y[j2][k1], twiddle(long(j2) * k1, n, sign)));
        const Vals z = dft(d, row, sign);
        for (int k2 = 0; k2 < q; ++k2)
            out[k1 + p * k2] = z[k2];
    }
    return out;
}

/* n = p q coprime: input j = (q j1 + p j2) mod n, and output k with
 * k = k1 mod p, k = k2 mod q (Chinese remainders); then
 * X[k] = sum_j2 w_q^(j2 k2) sum_j1 w_p^(j1 k1) x[j], with no twiddles. */
Vals good_thomas(Dag& d, const Vals& x, int sign, int p)
{
    const int n = int(x.size()), q = n / p;
    std::vector<Vals> y(q);
    for (int j2 = 0; j2 < q; ++j2) {
        Vals col;
        for (int j1 = 0; j1 < p; ++j1)
            col.push_back(x[(q * j1 + p * j2) % n]);
        y[j2] = dft(d, col, sign);
    }
    Vals out(n);
    for (int k1 = 0; k1 < p; ++k1) {
        Vals row;
        for (int j2 = 0; j2 < q; ++j2)
            row.push_back(y[j2][k1]);
        const Vals z = dft(d, row, sign);
        for (int k = 0; k < n; ++k)
            if (k % p == k1)
                out[k] = z[k % q];
    }
    return out;
}

/* U = DFT_(n/2)(x[2j]), Z = DFT_(n/4)(x[4j+1]), Z' = DFT_(n/4)(x[4j+3]);
 * with a = w^k Z_k, b = w^3k Z'_k (w = w_n) and k < n/4:
 * X[k] = U_k + (a+b), X[k+n/2] = U_k - (a+b),
 * X[k+n/4] = U_(k+n/4) + s i (a-b), X[k+3n/4] = U_(k+n/4) - s i (a-b). */
Vals split_radix(Dag& d, const Vals& x, int sign)
{
    const int n = int(x.size()), m = n / 4;
    Vals e, o1, o3;
    for (int j = 0; j < n; ++j)
        (j % 2 == 0 ? e : j % 4 == 1 ? o1 : o3).push_back(x[j]);
    const Vals u = dft(d, e, sign), z = dft(d, o1, sign), z3 = dft(d, o3, sign);
    Vals out(n);
    for (int k = 0; k < m; ++k) {
        const Val a = scale(z[k], twiddle(k, n, sign));
        const Val b = scale(z3[k], twiddle(3L * k, n, sign));
        const Val s = sum(d, { a, b }), t = scale(sum(d, { a, neg(b) }), { 0, real(sign) });
        out[k] = sum(d, { u[k], s });
        out[k + 2 * m] = sum(d, { u[k], neg(s) });
        out[k + m] = sum(d, { u[k + m], t });
        out[k + 3 * m] = sum(d, { u[k + m], neg(t) });
    }
    return out;
}

Vals dft(Dag& d, const Vals& x, int sign, Plan plan)
{
    switch (plan.alg) {
    case Alg::Direct:
        return direct(d, x, sign);
    case Alg::Odd:
        return odd(d, x, sign, false);
    case Alg::OddCentered:
        return odd(d, x, sign, true);
    case Alg::CT:
        return cooley_tukey(d, x, sign, plan.p);
    case Alg::PFA:
        return good_thomas(d, x, sign, plan.p);
    case Alg::Split:
        return split_radix(d, x, sign);
    }
    return {};
}

std::vector<Plan> candidates(int n)
{
    std::vector<Plan> c;
    if (n == 2)
        c.push_back({ Alg::Direct });
    if (n % 2 == 1) {
        c.push_back({ Alg::Odd });
        c.push_back({ Alg::OddCentered });
    }
    if (n % 4 == 0)
        c.push_back({ Alg::Split });
    for (int p = 2; p < n; ++p)
        if (n % p == 0) {
            c.push_back({ Alg::CT, p });
            if (std::gcd(p, n / p) == 1)
                c.push_back({ Alg::PFA, p });
        }
    return c;
}

Codelet build(int n, int sign, Plan plan)
{
    Dag d;
    Vals x;
    for (int j = 0; j < n; ++j)
        x.push_back(in(d, j));
    std::vector<int> out;
    for (const Val& v : dft(d, x, sign, plan))
        out.push_back(materialize(d, v));
    return lower(d, out, n, sign < 0);
}

std::map<std::pair<int, int>, Plan>& plans()
{
    static std::map<std::pair<int, int>, Plan> memo;
    return memo;
}

const Plan& best_plan(int n, int sign)
{
    auto it = plans().find({ n, sign });
    if (it != plans().end())
        return it->second;
    Plan best{};
    std::pair<int, int> best_cost{ -1, -1 };
    for (const Plan& p : candidates(n)) {
        const Counts k = count(build(n, sign, p));
        const std::pair<int, int> cost{ k.real_adds() + k.real_muls(), k.calls() };
        if (best_cost.first < 0 || cost < best_cost) {
            best = p;
            best_cost = cost;
        }
    }
    return plans().emplace(std::make_pair(n, sign), best).first->second;
}

} // namespace

Codelet best_codelet(int n, bool forward)
{
    const int sign = forward ? -1 : 1;
    return build(n, sign, best_plan(n, sign));
}

std::string best_plan_name(int n, bool forward)
{
    const Plan& p = best_plan(n, forward ? -1 : 1);
    const std::string pq = std::to_string(p.p) + "x" + std::to_string(n / (p.p ? p.p : 1));
    switch (p.alg) {
    case Alg::Direct:
        return "direct";
    case Alg::Odd:
        return "odd";
    case Alg::OddCentered:
        return "odd-centered";
    case Alg::CT:
        return "ct(" + pq + ")";
    case Alg::PFA:
        return "pfa(" + pq + ")";
    case Alg::Split:
        return "split";
    }
    return "?";
}

} // namespace cgen
