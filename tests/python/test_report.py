"""tools/report/patcoll_report.py without MPI: the statistics of a report
(spread, lateness, late ranks, wait at NxN), the verdict, and bad input."""
import array
import base64
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "report"))
import patcoll_report as report  # noqa: E402


def encode(values):
    a = array.array("d", values)
    if sys.byteorder != "little":
        a.byteswap()
    return base64.b64encode(a.tobytes()).decode()


def make_report(entries, exits, collective="allreduce", nbytes=8):
    """entries/exits: one list of P values per sampled call."""
    p, n = len(entries[0]), len(entries)
    return {"format": "patcoll-report", "version": 1, "complete": True, "world_size": p, "clock": "one node",
            "communicators": [{"id": 0, "name": "MPI_COMM_WORLD", "size": p, "instance": 0, "members": list(range(p))}],
            "sites": [{"id": 1, "communicator": 0, "collective": collective, "bytes": nbytes, "first_call": 0,
                       "call_site": "main+0x10 (a.out)", "call_sites": ["main+0x10 (a.out)"] * p, "calls": [n] * p,
                       "served_by": {"native": n * p},
                       "time_s": [sum(x[i] - e[i] for e, x in zip(entries, exits)) for i in range(p)],
                       "samples": {"count": n, "t0": 0, "call": list(range(n)),
                                   "entry": encode([v for row in entries for v in row]),
                                   "exit": encode([v for row in exits for v in row])},
                       "trace": None}]}


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = report.main(argv)
    return code, out.getvalue(), err.getvalue()


class Statistics(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, doc, name="r.json"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            if isinstance(doc, str):
                f.write(doc)
            else:
                json.dump(doc, f)
        return path

    def test_one_late_rank(self):
        # 4 ranks, rank 3 late by 20 ms (+ call-to-call jitter), rank 1 by 1 ms; exits 1 ms after the last arrival.
        entries = [[t, t + 0.001, t, t + 0.020 + 0.0001 * (k % 3)] for k, t in enumerate(i * 0.1 for i in range(9))]
        exits = [[max(e) + 0.001] * 4 for e in entries]
        code, out, err = run([self.write(make_report(entries, exits)), "--json", "--no-whatif"])
        self.assertEqual(code, 0, err)
        site = json.loads(out)["sites"][0]
        self.assertEqual(site["late_ranks"], [3])
        self.assertAlmostEqual(site["lateness_s"][3], 0.0201, places=6)
        self.assertAlmostEqual(site["lateness_s"][1], 0.001, places=6)
        self.assertAlmostEqual(site["spread_s"]["median"], 0.0201, places=6)
        # wait at NxN: per call sum(max - a_i) = 3 x 20.1 ms - 1 ms (rank 1 waits 1 ms less), x 9 calls
        self.assertAlmostEqual(site["wait_s"], 9 * (3 * 0.0201 - 0.001), delta=1e-4)
        self.assertEqual(site["calls"], 9)

    def test_balanced_has_no_late_rank(self):
        entries = [[t + 1e-5 * ((i + k) % 4) for i in range(4)] for k, t in enumerate(i * 0.1 for i in range(9))]
        exits = [[max(e) + 0.001] * 4 for e in entries]
        code, out, err = run([self.write(make_report(entries, exits)), "--json", "--no-whatif"])
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["sites"][0]["late_ranks"], [])
        self.assertIn("arrive together", doc["verdict"])

    def test_bad_input_is_one_line_and_exit_2(self):
        good = json.dumps(make_report([[0, 0.02]] * 3, [[0.03, 0.03]] * 3))
        cases = {"not json": "{\"format\": ", "wrong format": "{\"format\": \"x\"}",
                 "missing field": "{\"format\": \"patcoll-report\", \"sites\": []}",
                 "truncated": good[: len(good) // 2],
                 "bad base64": good.replace("\"entry\": \"", "\"entry\": \"!!"),
                 "wrong length": json.dumps(make_report([[0, 0.02]] * 3, [[0.03, 0.03]] * 2))}
        for name, text in cases.items():
            with self.subTest(name):
                code, out, err = run([self.write(text, name.replace(" ", "_") + ".json")])
                self.assertEqual(code, 2, (out, err))
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertTrue(err.startswith("patcoll-report: "), err)
        code, _, err = run([os.path.join(self.dir.name, "absent.json")])
        self.assertEqual(code, 2)
        self.assertIn("no report", err)

    def test_model_file(self):
        path = self.write("# comment\nalpha 1e-6\nbeta 2e-9\n", "m.txt")
        self.assertEqual(report.read_model(path), {"alpha": 1e-6, "beta": 2e-9})
        with self.assertRaises(report.ReportError):
            report.read_model(self.write("alpha fast\n", "bad.txt"))


if __name__ == "__main__":
    unittest.main()
