"""The linear program of data-mixture inference (see mixture.py), solved lazily.

Variables: alpha (one share per category, summing to 1), v_t >= 0 per step and w_p >= 0
per pair. For every step t and pair p::

    sum_i alpha_i * (c_i,t(m_t) - c_i,t(p)) + v_t + w_p >= 0

and the program minimises sum v + sum w. There are too many (t, p) to write down, so
rows are added lazily: solve, find the rows the solution violates, add the most
violated, solve again, until no row of the full program is violated: then the solution
is the full program's optimum. A user's limit (rounds, seconds) may stop it first; the
result then says so, with the largest violation left.

The search is over every pair's count history: between two changes a pair's mixed count
is constant, so on such a stretch the violated steps are those whose "merge count + v_t"
is below "pair count - w_p". They are found most violated first by range minima: the
stretch's minimum, then the minima of the two parts either side of it, and so on, for
every stretch at once (numpy), up to a budget of rows per round.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import Cancelled, SettingsError

ROUND_ADD = 5_000    # rows added per round at most (the most violated first)
SEARCH = 4           # ... chosen among at most this many times as many violated rows
TOLERANCE = 1e-6     # a violation below this (counts scaled so the largest merge is 1) is none
SLACK_SOLVES = 3     # a row slack in this many solves running leaves the program
USE_HIGHSPY = True   # warm-started rounds when highspy is installed (False: SciPy's linprog)

Report = Callable[[str, int, int], None]


@dataclass
class Solved:
    alpha: Any               # numpy float64, one per category, sums to 1
    objective: float         # sum of the slacks, in counts per mean sample size
    rounds: int
    n_constraints: int
    points: "Points"         # the count history over every category (for the steps)
    w: Any                   # each pair's slack (by point pid), per mean sample size
    log: list                # per round: (rows violated, largest violation, rows held)
    converged: bool          # no row of the full program is violated
    violation: float         # the largest violation left, per mean sample size (0: none)
    worst: tuple[int, int]   # (0-based step, pair key) of that violation; (-1, -1): none
    norm: float              # scaled counts * norm = counts per mean sample size


class Points:
    """Every category's pair counts through the replay, on the union of their change
    points: for each point u (a pair ``pid[u]`` from state ``start[u]`` to ``end[u]``),
    each category's count there (``counts[u, i]``). Points are sorted by (pair, state)."""

    def __init__(self, hist: list[tuple], T: int):
        import numpy as np
        C = len(hist)
        keys = np.concatenate([h[0] for h in hist])
        self.pair_keys, pid = np.unique(keys, return_inverse=True)
        pid = pid.astype(np.int64)
        states = np.concatenate([h[1] for h in hist]).astype(np.int64)
        cnt = np.concatenate([h[2] for h in hist])
        cat = np.concatenate([np.full(len(h[0]), i, np.int8) for i, h in enumerate(hist)])
        del keys
        order = np.lexsort((states, pid))
        pid, states, cnt, cat = pid[order], states[order], cnt[order], cat[order]
        del order
        # the last change of each (pair, state) holds the point's counts
        last = np.ones(len(pid), dtype=bool)
        last[:-1] = (pid[1:] != pid[:-1]) | (states[1:] != states[:-1])
        grp_start = np.ones(len(pid), dtype=bool)
        grp_start[1:] = pid[1:] != pid[:-1]
        first_of_pair = np.maximum.accumulate(np.where(grp_start, np.arange(len(pid)), 0))
        idx_last = np.nonzero(last)[0]
        self.counts = np.zeros((len(idx_last), C), dtype=np.float64)
        ar = np.arange(len(pid))
        for i in range(C):
            at = np.maximum.accumulate(np.where(cat == i, ar, -1))
            ok = at >= first_of_pair
            self.counts[:, i] = np.where(ok, cnt[np.maximum(at, 0)], 0)[idx_last]
        self.pid = pid[idx_last]
        self.start = states[idx_last]
        nxt = np.empty(len(self.pid), dtype=np.int64)
        nxt[:-1] = self.start[1:]
        nxt[-1] = T
        same = np.zeros(len(self.pid), dtype=bool)
        same[:-1] = self.pid[1:] == self.pid[:-1]
        self.end = np.where(same, nxt, T)
        self.T = T

    def at(self, pair_keys, states):
        """Each category's count of the pairs ``pair_keys`` at ``states`` (arrays of one
        shape): (..., C); pairs that never occurred count 0."""
        import numpy as np
        pid = np.searchsorted(self.pair_keys, pair_keys)
        last = len(self.pair_keys) - 1
        pid_ok = (pid <= last) & (self.pair_keys[np.minimum(pid, last)] == pair_keys)
        code = self.pid * (self.T + 1) + self.start
        q = pid * (self.T + 1) + states
        u = np.searchsorted(code, q, side="right") - 1
        ok = pid_ok & (u >= 0) & (self.pid[np.maximum(u, 0)] == pid)
        out = self.counts[np.maximum(u, 0)]
        out[~ok] = 0
        return out


def range_argmin(values):
    """A sparse table answering argmin of ``values`` over [s, e) for arrays s < e."""
    import numpy as np
    n = len(values)
    table = [np.arange(n)]
    k = 1
    while 2 * k <= n:
        prev = table[-1]
        a, b = prev[:n - 2 * k + 1], prev[k:n - k + 1]
        table.append(np.where(values[b] < values[a], b, a))
        k *= 2

    def query(s, e):
        lv = np.floor(np.log2(np.maximum(e - s, 1))).astype(np.int64)
        out = np.empty(len(s), dtype=np.int64)
        for j in np.unique(lv):
            m = lv == j
            t = table[j]
            x = t[s[m]]
            y = t[e[m] - (1 << j)]
            out[m] = np.where(values[y] < values[x], y, x)
        return out
    return query


def violations(points: Points, M, val, budget: int):
    """The violated rows, most violated first within each stretch: (point, step, gap)
    arrays, at most about ``budget`` of them, and the largest gap (<= 0: none). A row
    (t, pair of point u) is violated when ``val[u] - M[t] > TOLERANCE``."""
    import numpy as np
    query = range_argmin(M)
    u = np.nonzero(points.end > points.start)[0]
    lo, hi = points.start[u], points.end[u]
    found_u: list[Any] = []
    found_t: list[Any] = []
    found_g: list[Any] = []
    largest, n = 0.0, 0
    while len(u) and n < budget:
        t = query(lo, hi)
        g = val[u] - M[t]
        if not found_g:
            largest = float(g.max(initial=0.0))
        ok = g > TOLERANCE
        u, lo, hi, t, g = u[ok], lo[ok], hi[ok], t[ok], g[ok]
        found_u.append(u)
        found_t.append(t)
        found_g.append(g)
        n += len(u)
        left, right = t > lo, t + 1 < hi       # the stretch either side of its minimum
        u = np.concatenate([u[left], u[right]])
        lo, hi = np.concatenate([lo[left], t[right] + 1]), np.concatenate([t[left], hi[right]])
    if not found_u:
        e = np.zeros(0, dtype=np.int64)
        return e, e, np.zeros(0), largest
    return (np.concatenate(found_u), np.concatenate(found_t), np.concatenate(found_g),
            largest)


def solve(hist: list[tuple], sizes: list[int], T: int, report: Report,
          stop: Callable[[], bool], max_rounds: int | None = None,
          seconds: float | None = None) -> Solved:
    """The program's optimum, or where a limit (``max_rounds`` solves, ``seconds``)
    stopped it (``converged`` False)."""
    import numpy as np
    C = len(hist)
    t0 = time.monotonic()
    points = Points([(k, s, c) for k, s, c, _, _ in hist], T)
    mc = np.stack([h[3][:T] for h in hist], axis=1).astype(np.float64)    # (T, C)
    per_mean = np.mean(sizes) / np.array(sizes, dtype=np.float64)          # counts -> per mean size
    norm = max(float((mc * per_mean).max(initial=0.0)), 1.0)
    mcs = mc * (per_mean / norm)
    pcs = points.counts * (per_mean / norm)
    alpha = np.full(C, 1.0 / C)
    v = np.zeros(T)
    P = len(points.pair_keys)
    w = np.zeros(P)
    rows = np.zeros(0, dtype=np.int64)          # the program's rows: step * P + pair
    D = np.zeros((0, C))                        # ... and their coefficients of alpha
    age = np.zeros(0, dtype=np.int64)           # ... and the solves each has been slack
    dropped = np.zeros(0, dtype=np.int64)       # rows that left the program once
    objective, rounds, log = 0.0, 0, []
    worst = (-1, -1)
    warm = WarmLP(C, T, P) if highspy_module() is not None else None
    while True:
        if stop():
            raise Cancelled()
        report("solve", rounds, max_rounds or 0)
        M = mcs @ alpha + v
        val = pcs @ alpha - w[points.pid]
        pu, pt, gap, largest = violations(points, M, val, SEARCH * ROUND_ADD)
        if len(gap):
            k = int(np.argmax(gap))
            worst = (int(pt[k]), int(points.pair_keys[points.pid[pu[k]]]))
        keys = pt * P + points.pid[pu]
        fresh = ~np.isin(keys, rows)
        pu, keys, gap = pu[fresh], keys[fresh], gap[fresh]
        limited = (max_rounds is not None and rounds >= max_rounds) or \
            (seconds is not None and time.monotonic() - t0 >= seconds)
        # no fresh row: what is left violated is in the program, within HiGHS' tolerance
        if len(keys) == 0 or limited:
            break
        # the most violated rows, each (step, pair) once
        top = np.argsort(-gap, kind="stable")
        first = np.unique(keys[top], return_index=True)[1]
        take = top[np.sort(first)[:ROUND_ADD]]
        keys, pu, gap = keys[take], pu[take], gap[take]
        rows = np.concatenate([rows, keys])
        D_new = mcs[keys // P] - pcs[pu]
        D = np.concatenate([D, D_new])
        rounds += 1
        if warm is not None:
            alpha, v, w, objective, tight = warm.solve(keys, D_new, D)
        else:
            alpha, v, w, objective, tight = cold_lp(C, T, P, rows, D)
        log.append((len(keys), float(gap[0]) * norm, len(rows)))
        age = np.concatenate([age, np.zeros(len(keys), dtype=np.int64)])
        age = np.where(tight, 0, age + 1)
        # rows slack for a few solves leave, so the program stays near the size of what
        # binds; a row leaves once at most (added again, it stays), so rounds end
        keep = (age < SLACK_SOLVES) | np.isin(rows, dropped)
        if not keep.all():
            dropped = np.union1d(dropped, rows[~keep])
            rows, D, age = rows[keep], D[keep], age[keep]
            if warm is not None:
                warm.drop(~keep)
    converged = largest <= TOLERANCE or not limited
    if largest <= TOLERANCE:
        largest, worst = 0.0, (-1, -1)
    report("solve", rounds, max_rounds or rounds)
    alpha = np.clip(alpha, 0, None)
    alpha = alpha / alpha.sum() if alpha.sum() > 0 else np.full(C, 1.0 / C)
    return Solved(alpha, float(objective) * norm, rounds, len(rows), points, w * norm, log,
                  converged, largest * norm, worst, norm)


def highspy_module():
    """The highspy module, or None: the warm-started program needs it, SciPy's
    ``linprog`` (a cold start each round) stands in without it."""
    if not USE_HIGHSPY:
        return None
    try:
        import highspy
    except ImportError:
        return None
    return highspy


class WarmLP:
    """The lazy program kept in one HiGHS model between rounds: rows are added and
    dropped in place and dual simplex restarts from the last optimal basis (still
    dual feasible after adding rows), so a round costs what the new rows change, not
    a solve from scratch. Columns: alpha (C), then a v_t or w_p column the first time a
    row names that step or pair (never removed: a column in no row stays at 0).
    Row 0 is sum alpha = 1; rows 1.. are the rows of ``solve`` in its order."""

    def __init__(self, C: int, T: int, P: int):
        import numpy as np
        highspy = highspy_module()
        self.np, self.C, self.T, self.P = np, C, T, P
        # the core class, not highspy.Highs: that one's log callbacks print a banner on
        # stdout, which ``bpe-gui mixture --json`` keeps for the JSON alone
        make = getattr(highspy, "_Highs", highspy.Highs)
        h = make()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("solver", "simplex")
        h.setOptionValue("simplex_strategy", 1)      # dual: warm after adding rows
        h.setOptionValue("presolve", "off")
        h.setOptionValue("threads", 1)
        inf = highspy.kHighsInf
        self.inf, self.h, self.highspy = inf, h, highspy
        h.addCols(C, np.zeros(C), np.zeros(C), np.full(C, inf), 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        h.addRows(1, np.ones(1), np.ones(1), C, np.zeros(1, np.int32),
                  np.arange(C, dtype=np.int32), np.ones(C))
        self.n_cols = C
        self.step_col = np.full(T, -1, dtype=np.int64)
        self.pair_col = np.full(P, -1, dtype=np.int64)

    def _cols(self, table, ids):
        np = self.np
        new = np.unique(ids[table[ids] < 0])
        if len(new):
            table[new] = self.n_cols + np.arange(len(new))
            k = len(new)
            self.h.addCols(k, np.ones(k), np.zeros(k), np.full(k, self.inf), 0,
                           np.zeros(k, np.int32), np.zeros(0, np.int32), np.zeros(0))
            self.n_cols += k
        return table[ids]

    def solve(self, keys, D_new, D):
        np, C = self.np, self.C
        n = len(keys)
        if n:
            tc = self._cols(self.step_col, keys // self.P)
            pc = self._cols(self.pair_col, keys % self.P)
            idx = np.concatenate([np.tile(np.arange(C), (n, 1)), tc[:, None], pc[:, None]],
                                 axis=1).astype(np.int32).ravel()
            val = np.concatenate([D_new, np.ones((n, 2))], axis=1).ravel()
            self.h.addRows(n, np.zeros(n), np.full(n, self.inf), len(idx),
                           np.arange(0, len(idx), C + 2, dtype=np.int32), idx, val)
        self.h.run()
        if self.h.getModelStatus() != self.highspy.HighsModelStatus.kOptimal:
            raise SettingsError("The mixture's linear program could not be solved: "
                                f"{self.h.modelStatusToString(self.h.getModelStatus())}")
        sol = self.h.getSolution()
        x = np.asarray(sol.col_value)
        v = np.zeros(self.T)
        on = self.step_col >= 0
        v[on] = x[self.step_col[on]]
        w = np.zeros(self.P)
        on = self.pair_col >= 0
        w[on] = x[self.pair_col[on]]
        row = np.asarray(sol.row_value)[1:]
        tight = row <= 1e-9 * max(1.0, float(np.abs(D).max(initial=0)))
        objective = float(self.h.getInfo().objective_function_value)
        return x[:C].copy(), v, w, objective, tight

    def drop(self, gone):
        """Removes the rows ``gone`` (a mask over rows 1..) from the model."""
        np = self.np
        at = np.nonzero(gone)[0].astype(np.int32) + 1
        if len(at):
            self.h.deleteRows(len(at), at)


def cold_lp(C, T, P, rows, D):
    """min sum v + sum w  s.t.  D alpha + v_t + w_p >= 0 per row, sum alpha = 1, all >= 0;
    v and w only for the steps and pairs some row names. Returns alpha, v (per step),
    w (per pair), the objective, and which rows are tight."""
    import numpy as np
    from scipy import sparse
    from scipy.optimize import linprog
    n = len(rows)
    steps, t_col = np.unique(rows // P, return_inverse=True)
    prs, p_col = np.unique(rows % P, return_inverse=True)
    nv, nw = len(steps), len(prs)
    r = np.arange(n)
    data = np.concatenate([-D.ravel(), -np.ones(n), -np.ones(n)])
    rr = np.concatenate([np.repeat(r, C), r, r])
    cc = np.concatenate([np.tile(np.arange(C), n), C + t_col, C + nv + p_col])
    A = sparse.csr_matrix((data, (rr, cc)), shape=(n, C + nv + nw))
    cost = np.concatenate([np.zeros(C), np.ones(nv + nw)])
    A_eq = sparse.csr_matrix((np.ones(C), (np.zeros(C, dtype=int), np.arange(C))),
                             shape=(1, C + nv + nw))
    res = linprog(cost, A_ub=A, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0], bounds=(0, None),
                  method="highs")
    if res.status != 0 or res.x is None:
        raise SettingsError(f"The mixture's linear program could not be solved: {res.message}")
    x = res.x
    v = np.zeros(T)
    v[steps] = x[C:C + nv]
    w = np.zeros(P)
    w[prs] = x[C + nv:]
    tight = res.ineqlin.residual <= 1e-9 * max(1.0, float(np.abs(D).max(initial=0)))
    return x[:C], v, w, float(res.fun), tight
