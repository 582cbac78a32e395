"""tools/plot.py: grouping, ratios to the baseline, and the PNG itself."""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import plot  # noqa: E402


def record(coll, alg, count, delay, it, run_time, missed=False):
    return {"collective": coll, "algorithm": alg, "count": count, "bytes": 4 * count, "procs": 4,
            "pattern": "one-late", "max_delay_s": delay, "iteration": it, "run_time_s": run_time,
            "avg_elapsed_s": run_time / 2, "arrivals_s": [0, 0, 0, delay], "elapsed_s": [run_time / 2] * 4,
            "window_missed": missed, "correct": True}


def synthetic():
    rng = random.Random(1)
    out = []
    for coll in ("reduce", "allreduce"):
        for count in (1000, 1 << 20):
            for delay in (0.0, 0.01, 0.02):
                for it in range(7):
                    out.append(record(coll, "native", count, delay, it, 0.01 + delay + rng.random() * 1e-3))
                    out.append(record(coll, "fast", count, delay, it, 0.005 + delay / 2 + rng.random() * 1e-3))
    return out


class PlotTest(unittest.TestCase):
    def test_ratio_is_median_over_baseline_median_at_the_largest_delay(self):
        records = [record("reduce", "native", 10, 0.02, i, t) for i, t in enumerate([1.0, 2.0, 3.0])]
        records += [record("reduce", "fast", 10, 0.02, i, t) for i, t in enumerate([0.5, 1.0, 9.0])]
        records += [record("reduce", "fast", 10, 0.0, 0, 100.0)]  # smaller delay: ignored
        ratios = plot.ratios(plot.group(records)["reduce"], "native")
        self.assertEqual(ratios["native"], [(10, 1.0)])
        self.assertEqual(ratios["fast"], [(10, 0.5)])

    def test_missed_windows_are_left_out(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(json.dumps(record("reduce", "native", 10, 0.0, 0, 1.0)) + "\n")
            f.write(json.dumps(record("reduce", "native", 10, 0.0, 1, 5.0, missed=True)) + "\n")
        try:
            records = plot.load([f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual([r["run_time_s"] for r in records], [1.0])

    def test_writes_a_png_for_several_collectives_sizes_and_delays(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.png")
            plot.plot(synthetic(), out)
            with open(out, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_writes_a_png_for_a_single_delay(self):
        records = [r for r in synthetic() if r["max_delay_s"] == 0.02]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.png")
            plot.plot(records, out)
            self.assertGreater(os.path.getsize(out), 1000)

    def run_main(self, argv):
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = plot.main(argv)
        return code, [line for line in err.getvalue().splitlines() if line.strip()]

    def test_bad_input_is_one_clear_line_and_exit_code_2(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "good.jsonl")
            with open(good, "w") as f:
                f.write(json.dumps(record("reduce", "native", 10, 0.0, 0, 1.0)) + "\n")
            wrong = os.path.join(d, "wrong.jsonl")
            with open(wrong, "w") as f:
                f.write(json.dumps({"collective": "reduce", "algorithm": "native"}) + "\n")
            listed = os.path.join(d, "list.jsonl")
            with open(listed, "w") as f:
                f.write("[1, 2]\n")
            out = os.path.join(d, "out.png")
            for argv, says in (([os.path.join(d, "missing.jsonl"), "-o", out], "cannot read"),
                               ([wrong, "-o", out], "not a patcoll-bench record"),
                               ([listed, "-o", out], "not a patcoll-bench record"),
                               ([good, "-o", out, "--baseline", "nosuch"], "baseline 'nosuch' is not in the results")):
                code, lines = self.run_main(argv)
                self.assertEqual(code, 2, argv)
                self.assertEqual(len(lines), 1, lines)
                self.assertTrue(lines[0].startswith("plot.py: ") and says in lines[0], lines[0])
                self.assertFalse(os.path.exists(out))

    def test_a_single_size_with_a_bound_row_makes_a_png(self):
        records = [r for r in synthetic() if r["count"] == 1000 and r["max_delay_s"] == 0.02]
        records += [record(r["collective"], "bound", 1000, 0.02, r["iteration"], 0.021) for r in records
                    if r["algorithm"] == "native"]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.png")
            plot.plot(records, out)
            self.assertGreater(os.path.getsize(out), 1000)
        ratios = plot.ratios(plot.group(records)["reduce"], "native")
        self.assertEqual(len(ratios["fast"]), 1)  # one size: one bar per algorithm

    def test_command_line_needs_an_output(self):
        with self.assertRaises(SystemExit):
            plot.main(["x.jsonl"])


class PlotWithoutNumpyTest(unittest.TestCase):
    """plot.py under a python that cannot import numpy or matplotlib: a
    directory first on PYTHONPATH whose numpy and matplotlib raise
    ImportError on import."""

    def run_plot(self, *args):
        with tempfile.TemporaryDirectory() as shim:
            for name in ("numpy", "matplotlib"):
                os.mkdir(os.path.join(shim, name))
                with open(os.path.join(shim, name, "__init__.py"), "w") as f:
                    f.write("raise ImportError('No module named %s (test shim)')\n" % name)
            env = dict(os.environ, PYTHONPATH=shim)
            check = subprocess.run([sys.executable, "-c", "import numpy"], env=env, capture_output=True)
            self.assertNotEqual(check.returncode, 0, "the shim must hide numpy")
            return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "plot.py")] + list(args),
                                  env=env, capture_output=True, text=True, timeout=60)

    def test_help_works_without_numpy(self):
        result = self.run_plot("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("usage:", result.stdout)
        self.assertNotIn("Traceback", result.stderr)

    def test_drawing_without_numpy_is_one_line_and_exit_code_2(self):
        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, "in.jsonl")
            with open(data, "w") as f:
                f.write(json.dumps(record("reduce", "native", 10, 0.0, 0, 1.0)) + "\n")
            result = self.run_plot(data, "-o", os.path.join(d, "out.png"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("numpy", lines[0])


if __name__ == "__main__":
    unittest.main()
