"""What the module-rewriting probes share (probe_fold, probe_lastblock,
probe_welford): writing a variant beside the others."""
import os


def write_variant(src_path, out, label, text):
    """OUT/<stem of src_path>.<label>.py holds text; prints LABEL=PATH, the
    argument tools/device/gpu_bench.py takes."""
    os.makedirs(out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(src_path))[0]
    path = os.path.join(out, f"{stem}.{label}.py")
    with open(path, "w") as f:
        f.write(text)
    print(f"{label}={path}")
