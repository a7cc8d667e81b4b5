// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: the DAG of complex-vector values.
 *
 * Every node is one primitive on whole vectors (lanes are independent
 * transforms, so nothing here ever mixes lanes). Nodes are hash-consed: asking
 * twice for the same operation on the same operands gives the same node, which
 * is how common subexpressions end up shared.
 *
 * Elaboration does not build nodes for multiplications by constants directly.
 * It works on Val = coef * node with the coefficient kept symbolic, and only
 * turns coefficients into nodes where two values with different coefficients
 * meet in a sum. That folds x*1, x*-1 (into a vsub), x*0 and x*(+-i) for free
 * and factors shared coefficients out of sums (w*a + w*b = w*(a+b)).
 */
#ifndef GPUFFT_GEN_DAG_H
#define GPUFFT_GEN_DAG_H

#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace cgen {

using real = long double; // constants are computed in long double

struct cplx {
    real re = 0, im = 0;
};
cplx operator*(cplx a, cplx b);
cplx operator/(cplx a, cplx b);
inline cplx operator-(cplx a) { return { -a.re, -a.im }; }

/* Constants are snapped to a table, so values that are mathematically equal
 * but computed differently (cos(pi/4), sin(pi/4), w^3 / w) become bit-for-bit
 * equal: hash-consing and is_unit() compare exactly. */
real snap(real v);
cplx snap(cplx c);
bool is_zero(cplx c);
bool is_unit(cplx c); // 1, -1, i or -i

//! exp(sign * 2 pi i * m / n), snapped.
cplx twiddle(long m, long n, int sign);

enum class Op {
    In,      // input vector a (an index, not a node)
    Add,     // a + b
    Sub,     // a - b
    Scale,   // a * k.re
    MulI,    // a * i
    MulNegI, // a * -i
    CMul,    // a * k
    Fma,     // a * k.re + b   (only after lowering)
    Fnma,    // b - a * k.re   (only after lowering)
};

struct Node {
    Op op;
    int a = -1, b = -1;
    cplx k;
};

class Dag
{
public:
    int input(int j) { return make(Op::In, j, -1, {}); }
    //! The node for this operation, shared with any identical earlier one.
    int make(Op op, int a, int b = -1, cplx k = {});
    const Node& operator[](int id) const { return d_nodes[id]; }
    int size() const { return int(d_nodes.size()); }

private:
    std::vector<Node> d_nodes;
    std::map<std::tuple<int, int, int, real, real>, int> d_memo;
};

//! coef * node; node < 0 is the zero vector.
struct Val {
    int node = -1;
    cplx coef{ 1, 0 };
};

inline Val in(Dag& d, int j) { return { d.input(j), { 1, 0 } }; }
Val scale(Val v, cplx c); // lazy: no node is built
inline Val neg(Val v) { return scale(v, { -1, 0 }); }

/*!
 * The sum of the terms. Terms on the same node are merged, terms whose
 * coefficients differ only by a unit (+-1, +-i) are summed first with that
 * coefficient factored out, and the groups are then combined pairwise.
 * The grouping is what finds, e.g., (a1 - a2) * c instead of c*a1 - c*a2.
 */
Val sum(Dag& d, std::vector<Val> terms);

//! A node equal to v (its coefficient built into nodes).
int materialize(Dag& d, Val v);

} // namespace cgen

#endif
