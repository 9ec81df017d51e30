#!/usr/bin/env python3
"""tools/gpu-timeline.py on a timeline with known answers: two frames between three composite
kernels, kernels on two streams that overlap, a copy, and host waits that end inside some gaps; each
kernel's time a frame, and one frame's kernels in order.

    gpu_timeline_test.py PATH_TO_GPU_TIMELINE_PY
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tools/gpu-timeline.py")

# Times in us (the file's are ns). Frame 1 runs from 1 to 100 ms: busy 31-70 ms (a kernel on each of
# two streams, overlapping for 10 ms, then a copy) and 80-100 ms; idle 30 + 10 ms, the first gap
# after a host wait (the per-thread stream's cudaStreamSynchronize, ending at 30 ms). Frame 2 runs
# from 100 to 200 ms: busy 100-150 and 160-200 ms; idle 10 ms.
ROWS = [
    ("kernel", 0, 1000, 7, "void caustica::ParallelForKernel<caustica::CompositeSamplePass>(int, caustica::CompositeSamplePass)"),
    ("api", 1000, 30000, 1, "cudaStreamSynchronize_ptsz_v7000"),
    ("kernel", 31000, 50000, 7, "void caustica::ParallelForKernel<caustica::BuildPass>(int, caustica::BuildPass)"),
    ("kernel", 40000, 60000, 8, "void caustica::ParallelForKernel<caustica::EyePass>(int, caustica::EyePass)"),
    ("api", 60000, 62000, 1, "cudaMemcpy_ptds_v7000"),
    ("copy", 60000, 70000, 8, "DtoH 4 bytes"),
    ("kernel", 80000, 100000, 7, "void caustica::ParallelForKernel<caustica::CompositeSamplePass>(int, caustica::CompositeSamplePass)"),
    ("kernel", 100000, 150000, 7, "void caustica::ParallelForKernel<caustica::BuildPass>(int, caustica::BuildPass)"),
    ("kernel", 160000, 200000, 7, "void caustica::ParallelForKernel<caustica::CompositeSamplePass>(int, caustica::CompositeSamplePass)"),
]
US = 1000
TIMELINE = "kind\tstart_ns\tend_ns\tstream\tname\n" + "".join(
    f"{kind}\t{start * US}\t{end * US}\t{stream}\t{name}\n" for kind, start, end, stream, name in ROWS)


def load_module():
    spec = importlib.util.spec_from_file_location("gpu_timeline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class GpuTimeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.module = load_module()
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "timeline.tsv")
        with open(cls.path, "w") as f:
            f.write(TIMELINE)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_runtime_call_names_lose_their_suffixes(self):
        self.assertEqual(self.module.api_name("cudaMemcpy_ptds_v7000"), "cudaMemcpy")
        self.assertEqual(self.module.api_name("cudaStreamSynchronize_v3020"), "cudaStreamSynchronize")

    def test_busy_time_is_the_union_of_the_activities(self):
        gpu, waits = self.module.read(self.path)
        self.assertEqual(waits, [30000 * US, 62000 * US])
        merged = self.module.busy_intervals(gpu, 1000 * US, 100000 * US)
        self.assertEqual([(m[0] // US, m[1] // US) for m in merged], [(31000, 70000), (80000, 100000)])
        self.assertEqual(self.module.overlap_ns(gpu, 1000 * US, 100000 * US), 10000 * US)

    def test_report_per_frame(self):
        out = subprocess.run([sys.executable, SCRIPT, self.path], check=True, capture_output=True, text=True).stdout
        values = {}
        for line in out.splitlines():
            words = line.split()
            if len(words) >= 2 and words[-1].endswith("%"):
                values[" ".join(words[:-3])] = float(words[-3])  # ms
            elif len(words) >= 2 and words[-1].isdigit():
                values[" ".join(words[:-1])] = int(words[-1])
        self.assertIn("2 frames", out)
        # Medians of the two frames (ms): wall 99 and 100, busy 59 and 90, idle 40 and 10.
        self.assertAlmostEqual(values["wall"], 99.5)
        self.assertAlmostEqual(values["busy"], 74.5)
        self.assertAlmostEqual(values["idle"], 25.0)
        self.assertAlmostEqual(values["idle after a host wait"], 15.0)  # 30 ms in frame 1, none in 2
        self.assertAlmostEqual(values["two or more at once"], 5.0)  # 10 ms in frame 1
        self.assertEqual(values["host waits"], 1)  # two in frame 1, none in frame 2
        self.assertIn("CompositeSamplePass", out)

    def test_kernel_times_are_medians_of_each_frames_sums(self):
        gpu, _ = self.module.read(self.path)
        frames = [(1000 * US, 100000 * US, gpu), (100000 * US, 200000 * US, gpu)]
        rows = {name: (ns / US / 1000, launches) for ns, launches, name in self.module.kernel_times(frames)}
        # Frame 1: build 19 ms, eye 20, composite 20, the copy 10; frame 2: build 50, composite 40.
        self.assertEqual(rows["ParallelForKernel<BuildPass>"], (34.5, 1))
        self.assertEqual(rows["ParallelForKernel<CompositeSamplePass>"], (30.0, 1))
        self.assertEqual(rows["ParallelForKernel<EyePass>"], (10.0, 0.5))
        self.assertEqual(rows["copy DtoH"], (5.0, 0.5))
        self.assertEqual(self.module.kernel_times(frames)[0][2], "ParallelForKernel<BuildPass>")

    def test_one_frames_kernels_from_its_start(self):
        out = subprocess.run([sys.executable, SCRIPT, self.path, "--kernels", "2", "--frame", "1", "--min-us", "15000"],
                             check=True, capture_output=True, text=True).stdout
        listing = out[out.index("frame 1's kernels"):].splitlines()[2:]
        # Kernels of 15 ms or more, in ms from the frame's start at 1 ms; the 10 ms copy is left out.
        self.assertEqual([line.split()[:3] + line.split()[4:] for line in listing],
                         [["30.000", "49.000", "19.000", "ParallelForKernel<BuildPass>"],
                          ["39.000", "59.000", "20.000", "ParallelForKernel<EyePass>"],
                          ["79.000", "99.000", "20.000", "ParallelForKernel<CompositeSamplePass>"]])
        kernels = out[out.index("GPU time of each kernel"):out.index("frame 1's kernels")].splitlines()[2:]
        self.assertEqual([line.split()[-1] for line in kernels if line.strip()],
                         ["ParallelForKernel<BuildPass>", "ParallelForKernel<CompositeSamplePass>"])

    def test_a_frame_past_the_timeline_is_refused(self):
        run = subprocess.run([sys.executable, SCRIPT, self.path, "--frame", "3"], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("frames 1 to 2", run.stderr)


if __name__ == "__main__":
    unittest.main()
