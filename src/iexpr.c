/* Index expressions: canonical affine sums with div/mod atoms, and the few
 * simplifications that turn a reshape's index map back into strides.
 * See the iexpr.c section of coil.h for the form. */
#include <stdlib.h>
#include <string.h>

#include "coil.h"

static int cmp_expr(const IExpr *x, const IExpr *y);

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int cmp_atom(const IAtom *a, const IAtom *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return cmp_i64(a->kind, b->kind);
  if (a->kind == IA_AXIS) return cmp_i64(a->axis, b->axis);
  int c = cmp_i64(a->d, b->d);
  return c ? c : cmp_expr(a->e, b->e);
}

static int cmp_expr(const IExpr *x, const IExpr *y) {
  if (x->n != y->n) return cmp_i64(x->n, y->n);
  if (x->c != y->c) return cmp_i64(x->c, y->c);
  for (int i = 0; i < x->n; i++) {
    int c = cmp_atom(x->t[i].atom, y->t[i].atom);
    if (c) return c;
    if (x->t[i].coef != y->t[i].coef) return cmp_i64(x->t[i].coef, y->t[i].coef);
  }
  return 0;
}

bool ix_equal(const IExpr *x, const IExpr *y) { return cmp_expr(x, y) == 0; }

/* Terms are in canonical order, so hashing them in order is consistent
 * with cmp_expr. */
uint64_t ix_hash(const IExpr *x) {
  uint64_t h = coil_mix64((uint64_t)x->n ^ coil_mix64((uint64_t)x->c));
  for (int i = 0; i < x->n; i++) {
    const IAtom *at = x->t[i].atom;
    uint64_t a = at->kind == IA_AXIS ? (uint64_t)at->axis : coil_mix64((uint64_t)at->d) ^ ix_hash(at->e);
    h = coil_mix64(h ^ coil_mix64(a + (uint64_t)at->kind * 0x100000001ull) ^ (uint64_t)x->t[i].coef * 0x9e3779b97f4a7c15ull);
  }
  return h;
}

static IExpr *alloc_expr(Arena *a, int n) {
  IExpr *e = ARENA_NEW(a, IExpr);
  e->t = ARENA_ARRAY(a, ITerm, n ? n : 1);
  return e;
}

IExpr *ix_const(Arena *a, int64_t c) {
  IExpr *e = alloc_expr(a, 0);
  e->c = c;
  return e;
}

static IExpr *from_atom(Arena *a, const IAtom *at, int64_t coef) {
  IExpr *e = alloc_expr(a, 1);
  e->n = 1;
  e->t[0] = (ITerm){coef, at};
  return e;
}

IExpr *ix_axis(Arena *a, int axis) {
  IAtom *at = ARENA_NEW(a, IAtom);
  at->kind = IA_AXIS;
  at->axis = axis;
  return from_atom(a, at, 1);
}

/* c*m*(e // m) + c*(e % m) == c*e: fold such pairs. */
static IExpr *recombine(Arena *a, IExpr *x);

/* Merge two sorted term lists. */
static IExpr *add_terms(Arena *a, const IExpr *x, const IExpr *y, int64_t ky) {
  IExpr *r = alloc_expr(a, x->n + y->n);
  r->c = x->c + ky * y->c;
  int i = 0, j = 0;
  while (i < x->n || j < y->n) {
    int c = i == x->n ? 1 : j == y->n ? -1 : cmp_atom(x->t[i].atom, y->t[j].atom);
    ITerm t;
    if (c < 0) t = x->t[i++];
    else if (c > 0) t = (ITerm){ky * y->t[j].coef, y->t[j].atom}, j++;
    else t = (ITerm){x->t[i].coef + ky * y->t[j].coef, x->t[i].atom}, i++, j++;
    if (t.coef) r->t[r->n++] = t;
  }
  return r;
}

IExpr *ix_add(Arena *a, const IExpr *x, const IExpr *y) { return recombine(a, add_terms(a, x, y, 1)); }

IExpr *ix_scale(Arena *a, const IExpr *x, int64_t k) {
  if (k == 0) return ix_const(a, 0);
  IExpr *r = alloc_expr(a, x->n);
  r->c = x->c * k;
  r->n = x->n;
  for (int i = 0; i < x->n; i++) r->t[i] = (ITerm){x->t[i].coef * k, x->t[i].atom};
  return r;
}

static IExpr *recombine(Arena *a, IExpr *x) {
  for (int i = 0; i < x->n; i++) {
    const IAtom *d = x->t[i].atom;
    if (d->kind != IA_DIV) continue;
    for (int j = 0; j < x->n; j++) {
      const IAtom *m = x->t[j].atom;
      if (m->kind != IA_MOD || m->d != d->d || !ix_equal(m->e, d->e)) continue;
      int64_t c = x->t[j].coef;
      if (x->t[i].coef != c * d->d) continue;
      /* Replace both terms by c * e. */
      IExpr *rest = alloc_expr(a, x->n);
      rest->c = x->c;
      for (int k = 0; k < x->n; k++)
        if (k != i && k != j) rest->t[rest->n++] = x->t[k];
      return recombine(a, add_terms(a, rest, d->e, c));
    }
  }
  return x;
}

void ix_bounds(IRange r, const IExpr *x, int64_t *lo, int64_t *hi) {
  int64_t l = x->c, h = x->c;
  for (int i = 0; i < x->n; i++) {
    const IAtom *at = x->t[i].atom;
    int64_t al, ah;
    if (at->kind == IA_AXIS) {
      al = 0;
      ah = r.axis_size[at->axis] - 1;
    } else {
      int64_t el, eh;
      ix_bounds(r, at->e, &el, &eh);
      if (at->kind == IA_DIV) {
        al = el >= 0 ? el / at->d : -((-el + at->d - 1) / at->d);
        ah = eh >= 0 ? eh / at->d : -((-eh + at->d - 1) / at->d);
      } else if (el >= 0 && eh < at->d) {
        al = el;
        ah = eh;
      } else {
        al = 0;
        ah = at->d - 1;
      }
    }
    int64_t c = x->t[i].coef;
    if (c >= 0) l += c * al, h += c * ah;
    else l += c * ah, h += c * al;
  }
  *lo = l;
  *hi = h;
}

/* Split x into the part whose coefficients (and constant) are multiples of
 * d, and the rest, which keeps enough of the constant to be >= 0 wherever
 * its terms allow: the printers spell a division or modulo with C's and
 * Triton's operators, which truncate, so a dividend must never be
 * negative (a flip's -x1 read through a reshape: (6 - x1) // 6 is
 * (6 - x1) // 6 + 0, not (-x1) // 6 + 1). */
static void split_multiple(Arena *a, IRange rg, const IExpr *x, int64_t d, IExpr **mult, IExpr **rest) {
  IExpr *m = alloc_expr(a, x->n), *r = alloc_expr(a, x->n);
  int64_t cm = x->c - (((x->c % d) + d) % d);
  m->c = cm;
  r->c = x->c - cm;
  for (int i = 0; i < x->n; i++) {
    if (x->t[i].coef % d == 0) m->t[m->n++] = x->t[i];
    else r->t[r->n++] = x->t[i];
  }
  int64_t lo, hi;
  ix_bounds(rg, r, &lo, &hi);
  if (lo < 0 && lo > INT64_MIN / 4) {
    int64_t k = (-lo + d - 1) / d * d;
    r->c += k;
    m->c -= k;
  }
  *mult = m;
  *rest = r;
}

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Find g > 1 dividing d and a split x = g*big + small with 0 <= small < g
 * (big's terms taken by decreasing |coef|).  Then
 *   x // d == big // (d/g)   and   x % d == g*(big % (d/g)) + small. */
static bool split_common(Arena *a, IRange rg, const IExpr *x, int64_t d, int64_t *g_out, IExpr **big, IExpr **small) {
  if (x->n < 2 && x->c == 0) return false;
  int order[64];
  int n = x->n < 64 ? x->n : 64;
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0; j--) {
      int64_t cj = x->t[order[j]].coef, cp = x->t[order[j - 1]].coef;
      if ((cj < 0 ? -cj : cj) <= (cp < 0 ? -cp : cp)) break;
      int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
    }
  for (int k = 1; k <= n; k++) {
    int64_t g = d;
    for (int i = 0; i < k; i++) g = gcd64(g, x->t[order[i]].coef);
    if (g <= 1) return false;
    IExpr *b = alloc_expr(a, k), *sm = alloc_expr(a, n - k);
    sm->c = x->c;
    for (int i = 0; i < n; i++) {
      ITerm t = x->t[i];
      bool in_big = false;
      for (int j = 0; j < k; j++) in_big |= order[j] == i;
      if (in_big) b->t[b->n++] = (ITerm){t.coef / g, t.atom};
      else sm->t[sm->n++] = t;
    }
    int64_t lo, hi;
    ix_bounds(rg, sm, &lo, &hi);
    if (lo >= 0 && hi < g) {
      *g_out = g;
      *big = b;
      *small = sm;
      return true;
    }
  }
  return false;
}

IExpr *ix_div(Arena *a, IRange rg, const IExpr *x, int64_t d) {
  coil_assert(d > 0);
  if (d == 1) return (IExpr *)x;
  IExpr *m, *rest;
  split_multiple(a, rg, x, d, &m, &rest);
  IExpr *q = ix_scale(a, m, 1);
  for (int i = 0; i < q->n; i++) q->t[i].coef /= d;
  q->c /= d;
  int64_t lo, hi;
  ix_bounds(rg, rest, &lo, &hi);
  if (lo >= 0 && hi < d) return q; /* the rest never reaches d */
  int64_t g;
  IExpr *big, *small;
  if (split_common(a, rg, rest, d, &g, &big, &small)) return ix_add(a, q, ix_div(a, rg, big, d / g));
  /* Nested division: (e // a) // b == e // (a*b). */
  if (rest->n == 1 && rest->c == 0 && rest->t[0].coef == 1 && rest->t[0].atom->kind == IA_DIV) {
    const IAtom *in = rest->t[0].atom;
    return ix_add(a, q, ix_div(a, rg, in->e, in->d * d));
  }
  IAtom *at = ARENA_NEW(a, IAtom);
  at->kind = IA_DIV;
  at->e = rest;
  at->d = d;
  return ix_add(a, q, from_atom(a, at, 1));
}

IExpr *ix_mod(Arena *a, IRange rg, const IExpr *x, int64_t m) {
  coil_assert(m > 0);
  if (m == 1) return ix_const(a, 0);
  IExpr *mult, *rest;
  split_multiple(a, rg, x, m, &mult, &rest);
  int64_t lo, hi;
  ix_bounds(rg, rest, &lo, &hi);
  if (lo >= 0 && hi < m) return rest;
  int64_t g;
  IExpr *big, *small;
  if (split_common(a, rg, rest, m, &g, &big, &small))
    return ix_add(a, ix_scale(a, ix_mod(a, rg, big, m / g), g), small);
  IAtom *at = ARENA_NEW(a, IAtom);
  at->kind = IA_MOD;
  at->e = rest;
  at->d = m;
  return from_atom(a, at, 1);
}

bool ix_is_affine(const IExpr *x) {
  for (int i = 0; i < x->n; i++)
    if (x->t[i].atom->kind != IA_AXIS) return false;
  return true;
}

int64_t ix_coef(const IExpr *x, int axis) {
  for (int i = 0; i < x->n; i++)
    if (x->t[i].atom->kind == IA_AXIS && x->t[i].atom->axis == axis) return x->t[i].coef;
  return 0;
}

bool ix_mentions_nonlinear(const IExpr *x, int axis) {
  for (int i = 0; i < x->n; i++)
    if (x->t[i].atom->kind != IA_AXIS && ix_mentions(x->t[i].atom->e, axis)) return true;
  return false;
}

bool ix_mentions(const IExpr *x, int axis) {
  return ix_coef(x, axis) != 0 || ix_mentions_nonlinear(x, axis);
}

IExpr *ix_subst(Arena *a, IRange r, const IExpr *x, IExpr *const *sub) {
  IExpr *out = ix_const(a, x->c);
  for (int i = 0; i < x->n; i++) {
    const IAtom *at = x->t[i].atom;
    IExpr *v;
    if (at->kind == IA_AXIS) v = sub[at->axis] ? sub[at->axis] : from_atom(a, at, 1);
    else {
      IExpr *e = ix_subst(a, r, at->e, sub);
      v = at->kind == IA_DIV ? ix_div(a, r, e, at->d) : ix_mod(a, r, e, at->d);
    }
    out = ix_add(a, out, ix_scale(a, v, x->t[i].coef));
  }
  return out;
}

void ix_print(StrBuf *sb, const IExpr *x, const char *const *names, bool c_syntax) {
  bool first = true;
  for (int i = 0; i < x->n; i++) {
    int64_t c = x->t[i].coef;
    if (!first) sb_puts(sb, c < 0 ? " - " : " + ");
    else if (c < 0) sb_puts(sb, "-");
    int64_t ac = c < 0 ? -c : c;
    if (ac != 1) sb_printf(sb, "%lld*", (long long)ac);
    const IAtom *at = x->t[i].atom;
    if (at->kind == IA_AXIS) {
      sb_puts(sb, names[at->axis]);
    } else {
      sb_puts(sb, "((");
      ix_print(sb, at->e, names, c_syntax);
      sb_printf(sb, ") %s %lld)", at->kind == IA_DIV ? (c_syntax ? "/" : "//") : "%", (long long)at->d);
    }
    first = false;
  }
  if (x->c || first) {
    if (first) sb_printf(sb, "%lld", (long long)x->c);
    else sb_printf(sb, " %s %lld", x->c < 0 ? "-" : "+", (long long)(x->c < 0 ? -x->c : x->c));
  }
}

/* ------------------------------------------------ bounds under conditions */

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

static void bounds_where(IRange r, const IExpr *x, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi);

/* Narrow [*lo, *hi], the range of k*a + c0, to what lo <= k*a + c0 < hi
 * allows of a (k != 0): the range of a where the condition holds. */
static void narrow_by(const IRangeCond *cond, int64_t k, int64_t c0, int64_t *alo, int64_t *ahi) {
  int64_t l = *alo, h = *ahi;
  if (cond->lo != INT64_MIN) {
    if (k > 0) { int64_t b = ceil_div(cond->lo - c0, k); if (b > l) l = b; }
    else { int64_t b = floor_div(cond->lo - c0, k); if (b < h) h = b; }
  }
  if (cond->hi != INT64_MAX) {
    if (k > 0) { int64_t b = floor_div(cond->hi - 1 - c0, k); if (b < h) h = b; }
    else { int64_t b = ceil_div(cond->hi - 1 - c0, k); if (b > l) l = b; }
  }
  *alo = l;
  *ahi = h;
}

/* The range of an atom where the conditions hold: its own (an axis's
 * size, a division or modulo of its expression's range), narrowed by
 * each condition on that atom alone (c0 + k*atom). */
static void atom_bounds(IRange r, const IAtom *at, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi) {
  int64_t al, ah;
  if (at->kind == IA_AXIS) {
    al = 0;
    ah = r.axis_size[at->axis] - 1;
  } else {
    int64_t el, eh;
    bounds_where(r, at->e, c, nc, &el, &eh);
    if (at->kind == IA_DIV) {
      al = floor_div(el, at->d);
      ah = floor_div(eh, at->d);
    } else if (el >= 0 && eh < at->d) {
      al = el;
      ah = eh;
    } else {
      al = 0;
      ah = at->d - 1;
    }
  }
  for (int i = 0; i < nc; i++) {
    const IExpr *e = c[i].e;
    if (e->n == 1 && cmp_atom(e->t[0].atom, at) == 0) narrow_by(&c[i], e->t[0].coef, e->c, &al, &ah);
  }
  *lo = al;
  *hi = ah;
}

/* x's range by its terms, each atom's range narrowed by the conditions. */
static void bounds_terms(IRange r, const IExpr *x, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi) {
  int64_t l = x->c, h = x->c;
  for (int i = 0; i < x->n; i++) {
    int64_t al, ah, k = x->t[i].coef;
    atom_bounds(r, x->t[i].atom, c, nc, &al, &ah);
    if (k >= 0) l += k * al, h += k * ah;
    else l += k * ah, h += k * al;
  }
  *lo = l;
  *hi = h;
}

/* bounds_terms, and where a condition's expression e = c0 + P is found in
 * x as m*P (taken out of what is left, condition by condition), that part
 * by P's range where the condition holds: of the two, the narrower. */
static void bounds_where(IRange r, const IExpr *x, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi) {
  int64_t l, h;
  bounds_terms(r, x, c, nc, &l, &h);
  if (x->n > 64) {
    *lo = l, *hi = h;
    return;
  }
  ITerm buf[64];
  IExpr rest = {.c = x->c, .n = x->n, .t = buf};
  memcpy(buf, x->t, sizeof(ITerm) * (size_t)x->n);
  int64_t sl = 0, sh = 0; /* the parts taken out */
  bool any = false;
  for (int j = 0; j < nc; j++) {
    const IExpr *e = c[j].e;
    if (e->n == 0 || rest.n < e->n) continue;
    int64_t m = 0;
    bool ok = true;
    for (int t = 0, at = 0; t < e->n && ok; t++) {
      while (at < rest.n && cmp_atom(rest.t[at].atom, e->t[t].atom) != 0) at++;
      if (at == rest.n || rest.t[at].coef % e->t[t].coef) { ok = false; break; }
      int64_t q = rest.t[at].coef / e->t[t].coef;
      if (t == 0) m = q;
      else if (q != m) ok = false;
    }
    if (!ok || m == 0) continue;
    /* P = e - c0: its own range, narrowed by the condition */
    IExpr p = *e;
    p.c = 0;
    int64_t pl, ph;
    bounds_terms(r, &p, c, nc, &pl, &ph);
    narrow_by(&c[j], 1, e->c, &pl, &ph);
    sl += m > 0 ? m * pl : m * ph;
    sh += m > 0 ? m * ph : m * pl;
    any = true;
    int n = 0;
    for (int i = 0, t = 0; i < rest.n; i++) {
      if (t < e->n && cmp_atom(rest.t[i].atom, e->t[t].atom) == 0) {
        t++;
        continue;
      }
      rest.t[n++] = rest.t[i];
    }
    rest.n = n;
  }
  if (any) {
    int64_t rl, rh;
    bounds_terms(r, &rest, c, nc, &rl, &rh);
    if (rl + sl > l) l = rl + sl;
    if (rh + sh < h) h = rh + sh;
  }
  *lo = l;
  *hi = h;
}

void ix_bounds_where(IRange r, const IExpr *x, const IRangeCond *c, int nc, int64_t *lo, int64_t *hi) {
  /* A condition on a quotient bounds its dividend too: a <= e // d <= b
   * holds where d*a <= e < d*(b + 1) (a reshape's index map hands
   * conditions on e // d to loads that read e). */
  int MAXC = 2 * nc + 8, n = 0;
  IRangeCond *all = malloc(sizeof(IRangeCond) * (size_t)MAXC);
  if (!all) coil_unreachable("out of memory");
  for (int i = 0; i < nc; i++) all[n++] = c[i];
  for (int i = 0; i < n && n < MAXC; i++) {
    const IExpr *e = all[i].e;
    if (e->n == 1 && e->t[0].atom->kind == IA_MOD) {
      /* A condition on a remainder bounds a dividend that is never
       * negative: e >= e % d >= a, and e stays below its largest value
       * whose remainder is at most b (a reshape of a cat or a roll along
       * a merged dim hands conditions on e % d to loads that read e). */
      const IAtom *at = e->t[0].atom;
      int64_t alo = 0, ahi = at->d - 1, el, eh;
      narrow_by(&all[i], e->t[0].coef, e->c, &alo, &ahi);
      ix_bounds(r, at->e, &el, &eh);
      if (el < 0 || at->d <= 0) continue;
      IRangeCond d = {(IExpr *)at->e, INT64_MIN, INT64_MAX};
      if (alo > el) d.lo = alo;
      if (ahi < at->d - 1 && eh % at->d > ahi) d.hi = eh - (eh % at->d - ahi) + 1;
      if (d.lo != INT64_MIN || d.hi != INT64_MAX) all[n++] = d;
      continue;
    }
    if (e->n != 1 || e->t[0].atom->kind != IA_DIV) continue;
    const IAtom *at = e->t[0].atom;
    int64_t alo = INT64_MIN / 4, ahi = INT64_MAX / 4;
    narrow_by(&all[i], e->t[0].coef, e->c, &alo, &ahi);
    IRangeCond d = {(IExpr *)at->e, INT64_MIN, INT64_MAX};
    if (alo > INT64_MIN / 4 && alo < INT64_MAX / 4 / at->d) d.lo = alo * at->d;
    if (ahi < INT64_MAX / 4 && ahi > INT64_MIN / 4 / at->d) d.hi = (ahi + 1) * at->d;
    if (d.lo != INT64_MIN || d.hi != INT64_MAX) all[n++] = d;
  }
  bounds_where(r, x, all, n, lo, hi);
  free(all);
}
