#!/usr/bin/env python3
"""Fit Wuzi's codebook network to the positions `pbrain-wuzi train --codebook-data` writes.

    python3 scripts/train-codebook.py DATA... --out FILE [--epochs N] [--batch B]
        [--rate R] [--l2 X] [--scale S] [--seed S]

The network (see src/pattern/codebook.rs) is a correction on top of the evaluation
without networks: every empty cell adds up one learned vector per line, chosen by the
line's pair of patterns, clips the sum to 0..1, and the board's sum of those goes
through a small head per side to move. The fit is logistic regression of the corrected
evaluation (on the curve of --scale units per logistic unit) to each position's target,
by Adam in JAX, its step size falling to zero over the run. The held-out positions (the data file's flag) are only measured. The
same inputs and --seed write the same file. Requirements: scripts/requirements-train.txt.
"""

import argparse
import sys

import numpy as np

DIM = 16
HIDDEN = 32
POOL_CELLS = 16.0
PATTERNS = ["Dead", "Overline", "B1", "F1", "B2", "F2", "F2A", "F2B", "B3", "F3",
            "F3S", "B4", "F4", "F5"]
STONE = 0xFF
MAGIC = b"WUZICB01"
# The head's output weights are learned in units of this many evaluation units, so that
# Adam's steps reach corrections of hundreds of units.
OUT_UNITS = 100.0


def read(paths):
    """The positions of every file: line patterns (N, C, 4) uint8, line keys (N, C, 4)
    uint16, side, held, base, target."""
    parts = []
    size = None
    for path in paths:
        raw = np.fromfile(path, dtype=np.uint8)
        if raw[:8].tobytes() != MAGIC:
            sys.exit(f"{path}: not a file of `pbrain-wuzi train --codebook-data`")
        w, h = raw[8:12].view("<u2")
        if size not in (None, (w, h)):
            sys.exit(f"{path}: board {w}x{h}, the others {size[0]}x{size[1]}")
        size = (w, h)
        cells = int(w) * int(h)
        rec = 12 * cells + 12
        body = raw[12:]
        if len(body) % rec:
            sys.exit(f"{path}: {len(body)} bytes of records is no whole number of {rec}")
        parts.append(body.reshape(-1, rec))
    if not parts:
        sys.exit("no data")
    recs = np.concatenate(parts)
    n = size[0] * size[1]
    cells = recs[:, : 4 * n].reshape(len(recs), -1, 4)
    keys = recs[:, 4 * n : 12 * n].copy().view("<u2").reshape(len(recs), -1, 4)
    tail = recs[:, 12 * n :]
    side = tail[:, 0].astype(np.int32)
    held = tail[:, 1].astype(bool)
    base = tail[:, 4:8].copy().view("<f4")[:, 0]
    target = tail[:, 8:12].copy().view("<f4")[:, 0]
    return cells, keys, side, held, base, target


def init(seed):
    rng = np.random.default_rng(seed)
    return {
        "lines": (rng.standard_normal((256, DIM)) * 0.05).astype(np.float32),
        "cell": np.full(DIM, 0.3, np.float32),
        "w1": (rng.standard_normal((2, HIDDEN, DIM)) * 0.3).astype(np.float32),
        "b1": np.full((2, HIDDEN), 0.1, np.float32),
        "out": np.zeros((2, HIDDEN), np.float32),
        "offset": np.zeros(2, np.float32),
    }


def make_model(jnp, jax):
    def correction(p, cells, side):
        stone = cells[:, :, 0] == STONE
        f = p["lines"][cells.astype(jnp.int32)].sum(axis=2) + p["cell"]
        f = jnp.clip(f, 0.0, 1.0) * (~stone)[:, :, None]
        x = f.sum(axis=1) / POOL_CELLS
        w1 = p["w1"][side]
        pre = jnp.einsum("bd,bhd->bh", x, w1) + p["b1"][side]
        head = (jax.nn.relu(pre) * p["out"][side]).sum(axis=1) + p["offset"][side]
        return OUT_UNITS * head

    def loss(p, batch, scale, l2):
        cells, side, base, target = batch
        z = (base + correction(p, cells, side)) / scale
        bce = jnp.mean(jax.nn.softplus(z) - target * z)
        return bce + l2 * jnp.sum(p["lines"] ** 2)

    return correction, loss


def entropy_floor(t):
    t = np.clip(t.astype(np.float64), 1e-7, 1 - 1e-7)
    return -(t * np.log(t) + (1 - t) * np.log(1 - t))


def write(p, path, header):
    lines = [f"# {h}" for h in header]
    lines.append(f"codebook {DIM} {HIDDEN}")
    fmt = lambda v: " ".join(f"{x:.5f}" for x in v)
    for pair in range(256):
        b, w = pair & 15, pair >> 4
        if b < len(PATTERNS) and w < len(PATTERNS) and np.any(p["lines"][pair] != 0):
            lines.append(f"line {PATTERNS[b]} {PATTERNS[w]} {fmt(p['lines'][pair])}")
    lines.append(f"cell {fmt(p['cell'])}")
    for s, name in enumerate(["black", "white"]):
        lines.append(f"side {name}")
        for k in range(HIDDEN):
            out = OUT_UNITS * p["out"][s][k]
            lines.append(f"unit {p['b1'][s][k]:.5f} {out:.5f} {fmt(p['w1'][s][k])}")
        lines.append(f"offset {OUT_UNITS * p['offset'][s]:.5f}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def load(path):
    """The parameters of a codebook file (as `write` writes it)."""
    p = {k: np.zeros_like(v) for k, v in init(0).items()}
    side, unit = None, 0
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#") or w[0] == "codebook":
            continue
        vals = lambda ws: [float(x) for x in ws]
        if w[0] == "line":
            p["lines"][PATTERNS.index(w[1]) | PATTERNS.index(w[2]) << 4] = vals(w[3:])
        elif w[0] == "cell":
            p["cell"][:] = vals(w[1:])
        elif w[0] == "side":
            side, unit = ["black", "white"].index(w[1]), 0
        elif w[0] == "unit":
            p["b1"][side][unit] = float(w[1])
            p["out"][side][unit] = float(w[2]) / OUT_UNITS
            p["w1"][side][unit] = vals(w[3:])
            unit += 1
        elif w[0] == "offset":
            p["offset"][side] = float(w[1]) / OUT_UNITS
    return p


def compare(args):
    """Check the engine against this trainer: DATA written without a codebook, --with
    the same positions written with --codebook FILE; each position's difference must be
    the trainer's correction, up to the engine's integer rounding."""
    import jax
    import jax.numpy as jnp

    cells, _, side, _, base, _ = read(args.data)
    _, _, _, _, with_cb, _ = read([args.compare_with])
    correction, _ = make_model(jnp, jax)
    p = {k: jnp.asarray(v) for k, v in load(args.codebook).items()}
    ours = np.concatenate([
        np.asarray(correction(p, jnp.asarray(cells[i : i + 512]), jnp.asarray(side[i : i + 512])))
        for i in range(0, len(cells), 512)
    ])
    diff = np.abs((with_cb - base) - ours)
    worst = float(diff.max()) if len(diff) else 0.0
    print(f"{len(cells)} positions: the engine's correction differs from the trainer's by "
          f"at most {worst:.2f} (mean {float(diff.mean()) if len(diff) else 0:.3f})")
    if worst > 2.0 + 0.02 * float(np.abs(ours).max(initial=0.0)):
        sys.exit("the engine and the trainer disagree")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--rate", type=float, default=0.003)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--scale", type=float, default=200.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare-with", metavar="DATA2",
                    help="check instead: DATA2 holds DATA's positions written with "
                    "--codebook FILE; the differences must be FILE's corrections")
    ap.add_argument("--codebook", metavar="FILE", help="with --compare-with")
    args = ap.parse_args()
    if args.compare_with:
        if not args.codebook:
            sys.exit("--compare-with needs --codebook FILE")
        return compare(args)

    if not args.out:
        sys.exit("--out FILE is required")
    import jax
    import jax.numpy as jnp
    import optax

    cells, _, side, held, base, target = read(args.data)
    # Which pairs occur: only those get a vector (the others stay zero in the file).
    seen = np.zeros(256, bool)
    seen[np.unique(cells)] = True
    seen[STONE] = False
    train = np.flatnonzero(~held)
    test = np.flatnonzero(held)
    print(f"{len(cells)} positions ({len(test)} held out), {int(seen.sum())} line-pattern pairs seen")

    correction, loss = make_model(jnp, jax)
    p = {k: jnp.asarray(v) for k, v in init(args.seed).items()}
    p["lines"] = p["lines"] * jnp.asarray(seen[:, None], jnp.float32)
    mask = jnp.asarray(seen[:, None], jnp.float32)
    # The step size falls from --rate to zero over the run (a cosine), so that the last
    # epochs settle rather than jump about.
    steps = args.epochs * max(1, len(train) // min(args.batch, max(1, len(train))))
    opt = optax.adam(optax.cosine_decay_schedule(args.rate, max(1, steps)))
    state = opt.init(p)

    @jax.jit
    def step(p, state, batch):
        value, grads = jax.value_and_grad(loss)(p, batch, args.scale, args.l2)
        grads["lines"] = grads["lines"] * mask
        updates, state = opt.update(grads, state, p)
        return optax.apply_updates(p, updates), state, value

    @jax.jit
    def batch_loss(p, batch):
        return loss(p, batch, args.scale, 0.0)

    def measure(p, idx):
        if len(idx) == 0:
            return float("nan")
        total = 0.0
        for i in range(0, len(idx), 1024):
            j = idx[i : i + 1024]
            b = (jnp.asarray(cells[j]), jnp.asarray(side[j]), jnp.asarray(base[j]), jnp.asarray(target[j]))
            total += float(batch_loss(p, b)) * len(j)
        return total / len(idx)

    zero = {**p, "out": jnp.zeros_like(p["out"]), "offset": jnp.zeros_like(p["offset"])}
    before = (measure(zero, train), measure(zero, test))
    floor = (entropy_floor(target[train]).mean(), entropy_floor(target[test]).mean() if len(test) else float("nan"))
    print(f"loss without the network: training {before[0]:.5f}, held out {before[1]:.5f} "
          f"(the targets' own entropy {floor[0]:.5f}, {floor[1]:.5f})")
    rng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        order = rng.permutation(train)
        size = min(args.batch, len(order))
        for i in range(0, len(order) - size + 1, size):
            j = np.sort(order[i : i + size])
            b = (jnp.asarray(cells[j]), jnp.asarray(side[j]), jnp.asarray(base[j]), jnp.asarray(target[j]))
            p, state, _ = step(p, state, b)
        print(f"epoch {epoch + 1}: training {measure(p, train):.5f}, held out {measure(p, test):.5f}", flush=True)
    after = (measure(p, train), measure(p, test))
    out = {k: np.asarray(v) for k, v in p.items()}
    header = [
        "Wuzi's codebook network, written by scripts/train-codebook.py",
        f"from {', '.join(args.data)} ({len(cells)} positions, {len(test)} held out),",
        f"{args.epochs} epochs, batch {args.batch}, rate {args.rate}, l2 {args.l2}, scale {args.scale}, seed {args.seed}.",
        f"Loss without the network, then with it: training {before[0]:.5f} -> {after[0]:.5f},",
        f"held out {before[1]:.5f} -> {after[1]:.5f}.",
    ]
    write(out, args.out, header)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
