#!/usr/bin/env python3
"""A GPU module whose split reductions finish in one launch:
    python3 tools/device/probe_lastblock.py MODULE.py OUTDIR LABEL
writes OUTDIR/<stem>.<LABEL>.py and prints LABEL=PATH for
tools/device/gpu_bench.py.  In MODULE.py (`coil emit --target triton-gpu
--harness`) every part kernel K followed by its K_combine launch becomes one
kernel: each block stores its part as before, then counts itself done on a
counter per x block (an atomic add, acq_rel), and the block that comes last
calls the combine kernel's function for its x block (with the part's XBLOCK;
its loads of the parts skip L1) and puts the counter back to 0 for the next
call.  The combine launch is dropped; the
counters are one more scratch buffer, zeroed once when allocated."""
import re
import sys

from probe_common import write_variant


def kernel_text(src, name):
    m = re.search(rf"\n@triton.jit\ndef {name}\((.*?)\):\n(.*?)(?=\n@triton.jit|\n\n# ---- what coil chose)", src, re.S)
    return m


def params(sig):
    return [p.split(":")[0].strip() for p in sig.split(",") if p.strip()]


def main():
    src_path, out, label = sys.argv[1:4]
    src = open(src_path).read()
    ns = {}
    exec(compile(src[src.index("COIL_BUFFERS = ["):src.index("\ndef coil_bind")], src_path, "exec"), ns)
    launches, buffers = ns["COIL_LAUNCHES"], ns["COIL_BUFFERS"]
    new_launches = []
    i = 0
    while i < len(launches):
        L = launches[i]
        C = launches[i + 1] if i + 1 < len(launches) else None
        if not C or C["kernel"] != L["kernel"] + "_combine":
            new_launches.append(L)
            i += 1
            continue
        part, comb = kernel_text(src, L["kernel"]), kernel_text(src, C["kernel"])
        pp, cp = params(part.group(1)), params(comb.group(1))
        pargs = {a[0]: a for a in L["args"]}
        cargs = {a[0]: a for a in C["args"]}
        xblock = pargs["XBLOCK"][2]
        extra = []
        for p in cp:
            if p in ("XBLOCK", "SBLOCK") or p.startswith("ws_ptr"):
                continue
            if p in pargs:
                if pargs[p] != cargs[p]:
                    sys.exit(f"probe_lastblock: {p} differs between {L['kernel']} and its combine")
                continue
            extra.append(cargs[p])
        rsplit = cargs["RSPLIT"][2]
        sblock = 1
        while sblock < rsplit and xblock * sblock * 2 <= 8192:
            sblock *= 2
        cnt = len(buffers)
        buffers.append((f"{L['kernel']}_count", "scratch", "int32", (L["grid"][0],), -1))
        args = L["args"] + extra + [("cnt_ptr", "ptr", cnt), ("SBLOCK", "constexpr", sblock)]
        sig = ", ".join(a[0] + (": tl.constexpr" if a[1] == "constexpr" else "") for a in args)
        body = part.group(2).rstrip("\n")
        ctext = comb.group(0).replace(", other=0.0)", ", other=0.0, cache_modifier='.cg')")
        call = ", ".join(a[0] for a in C["args"] if a[0] != "SBLOCK") + ", SBLOCK"
        text = (f"\n@triton.jit\ndef {L['kernel']}({sig}):\n{body}\n"
                "    tl.debug_barrier()\n"
                "    done = tl.atomic_add(cnt_ptr + tl.program_id(0), 1, sem='acq_rel')\n"
                "    if done == RSPLIT - 1:\n"
                "        tl.store(cnt_ptr + tl.program_id(0), 0)\n"
                f"        {C['kernel']}({call})\n")
        # the combine stays a function, called by the last block (its own
        # names, so none clashes with the part's in Triton's if)
        src = src.replace(comb.group(0), "").replace(part.group(0), ctext + "\n" + text)
        L = dict(L, args=args)
        new_launches.append(L)
        i += 2
    if len(new_launches) == len(launches):
        sys.exit("probe_lastblock: no split reduction here")
    head, rest = src.split("COIL_BUFFERS = [", 1)
    rest = rest[rest.index("\ndef coil_bind"):]
    tables = "COIL_BUFFERS = " + repr(buffers) + "\n"
    keep = src[src.index("COIL_OUTPUTS ="):src.index("COIL_LAUNCHES = [")]
    tables += keep + "COIL_LAUNCHES = " + repr(new_launches) + "\n\n"
    src = head + tables + rest
    src = src.replace("    if COIL_STATUS is not None:\n        bufs[COIL_STATUS].zero_()\n    return bufs",
                      "    if COIL_STATUS is not None:\n        bufs[COIL_STATUS].zero_()\n"
                      "    for b, (name, kind, *_) in zip(bufs, COIL_BUFFERS):\n"
                      "        if name.endswith('_count'):\n            b.zero_()\n    return bufs")
    write_variant(src_path, out, label, src)


if __name__ == "__main__":
    main()
