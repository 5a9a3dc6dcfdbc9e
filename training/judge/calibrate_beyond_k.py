"""
Chooses CITETRACE_JUDGE_BEYOND_K: the judge score a unit of a passage ranked below the k best-retrieved must
reach for its passage to be offered. Reads two `citetrace eval --json` runs of the same case files, one with
the bar at 1 (in effect: only the k best-retrieved are offered) and one with the bar at the judge's own
threshold (every answering passage is offered), and replays each case under each bar of the grid: a case
takes the open run's outcome when a unit below the k best-retrieved reached the bar, the closed run's
otherwise. Exact at both ends of the grid; in between, a case whose offered passages would mix both runs'
is counted with the open run's outcome. The bar chosen minimises 2 x unsupported answers + wrong
abstentions (the weight the judge's own threshold is calibrated with); ties go to the higher bar.

    python3 training/judge/calibrate_beyond_k.py CLOSED_DIR OPEN_DIR [K]

Each directory holds one eval JSON per case file, named alike in both (N.json).
"""
import json
import sys
from pathlib import Path

GRID = [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.94, 0.96, 0.98, 0.99, 1.0]


def cases(path: Path) -> dict:
    return {c["id"]: c for c in json.loads(path.read_text())["cases"]}


def beyond_k_best(case: dict, k: int) -> float:
    """The best score among answering units of passages ranked below the k best-retrieved (0 when none)."""
    trace = case.get("trace") or {}
    decision = trace.get("support_decision") or {}
    threshold = (decision.get("judge") or {}).get("threshold", 1.0)
    rank = {r["label"]: r["rank"] for r in trace.get("retrieved", [])}
    scores = [u["score"] for u in decision.get("units") or [] if u.get("score") is not None and u["score"] >= threshold and rank.get(u["label"], 0) > k]
    return max(scores, default=0.0)


def main() -> None:
    if len(sys.argv) not in (3, 4):
        print("usage: calibrate_beyond_k.py CLOSED_DIR OPEN_DIR [K]", file=sys.stderr)
        sys.exit(2)
    closed_dir, open_dir = Path(sys.argv[1]), Path(sys.argv[2])
    k = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    rows = []
    for closed_file in sorted(closed_dir.glob("*.json")):
        closed, opened = cases(closed_file), cases(open_dir / closed_file.name)
        for cid, c in closed.items():
            o = opened[cid]
            rows.append((c["expect"], (c["actual"], c["passed"]), (o["actual"], o["passed"]), beyond_k_best(o, k)))
    print(f"{len(rows)} cases")
    results = []
    for bar in GRID:
        unsupported = wrong = passed = 0
        for expect, closed, opened, best in rows:
            actual, ok = opened if best >= bar else closed
            unsupported += actual == "answer" and expect != "answer"
            wrong += expect == "answer" and actual == "abstain"
            passed += ok
        results.append((2 * unsupported + wrong, -bar, bar, unsupported, wrong, passed))
        print(f"bar {bar:.2f}: unsupported {unsupported}, wrong abstentions {wrong}, cost {2 * unsupported + wrong}, passed {passed}")
    best = min(results)
    print(f"chosen: {best[2]:.2f}")


if __name__ == "__main__":
    main()
