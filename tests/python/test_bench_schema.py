"""The JSON-lines schema checker used by the MPI smoke test."""
import copy
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_schema  # noqa: E402

GOOD = {
    "collective": "reduce", "algorithm": "native", "count": 1000, "bytes": 4000, "procs": 2,
    "pattern": "one-late", "max_delay_s": 0.002, "iteration": 0, "run_time_s": 0.003,
    "avg_elapsed_s": 0.0015, "arrivals_s": [0, 0.002], "elapsed_s": [0.002, 0.001], "correct": True,
}


class SchemaTest(unittest.TestCase):
    def test_a_complete_record_has_no_problems(self):
        self.assertEqual(bench_schema.check_record(GOOD), [])

    def test_each_missing_required_field_is_reported(self):
        for key in bench_schema.REQUIRED:
            record = copy.deepcopy(GOOD)
            del record[key]
            self.assertIn("missing field '%s'" % key, bench_schema.check_record(record))

    def test_list_length_must_match_procs(self):
        record = copy.deepcopy(GOOD)
        record["elapsed_s"] = [0.1]
        self.assertTrue(any("elapsed_s" in p for p in bench_schema.check_record(record)))

    def test_bool_is_not_accepted_as_a_number_and_vice_versa(self):
        record = copy.deepcopy(GOOD)
        record["count"] = True
        record["correct"] = 1
        problems = bench_schema.check_record(record)
        self.assertTrue(any("'count'" in p for p in problems))
        self.assertTrue(any("'correct'" in p for p in problems))

    def test_avg_elapsed_must_be_the_mean_of_elapsed(self):
        record = copy.deepcopy(GOOD)
        record["avg_elapsed_s"] = 0.5
        self.assertTrue(any("mean" in p for p in bench_schema.check_record(record)))

    def test_bound_and_tight_bound_records_carry_the_probes(self):
        for name in ("bound", "tight_bound"):
            record = copy.deepcopy(GOOD)
            record.update(algorithm=name, transfer_s=0.001, reduce_local_s=0.0002)
            self.assertEqual(bench_schema.check_record(record), [])
            record["transfer_s"] = "fast"
            self.assertTrue(any("transfer_s" in p for p in bench_schema.check_record(record)))

    def test_min_and_max_elapsed_are_the_extremes_over_ranks(self):
        record = copy.deepcopy(GOOD)
        record["min_elapsed_s"], record["max_elapsed_s"] = 0.001, 0.002
        self.assertEqual(bench_schema.check_record(record), [])
        record["min_elapsed_s"] = 0.0015
        self.assertTrue(any("min_elapsed_s" in p for p in bench_schema.check_record(record)))
        record = copy.deepcopy(GOOD)
        record["max_elapsed_s"] = "slow"
        self.assertTrue(any("max_elapsed_s" in p for p in bench_schema.check_record(record)))

    def test_unknown_collective_is_reported(self):
        record = copy.deepcopy(GOOD)
        record["collective"] = "bogus"
        self.assertTrue(bench_schema.check_record(record))

    def test_check_file_reports_lines_that_are_not_json(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(json.dumps(GOOD) + "\n{not json\n")
        try:
            records, problems = bench_schema.check_file(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(len(records), 1)
        self.assertEqual(len(problems), 1)
        self.assertIn("line 2", problems[0])


if __name__ == "__main__":
    unittest.main()
