/* The Python around the Triton kernels.
 *
 * Every module ends with what coil chose, as Python literals that a
 * program can read (the C executor, a runner, the harness):
 *   COIL_INPUTS    the parameters: name, torch dtype, shape, distribution
 *   COIL_INPUT_STRIDES  each parameter's strides, in elements, as the
 *                  kernels index its storage (the annotation's stride(...),
 *                  else contiguous)
 *   COIL_BUFFERS   every buffer by id: Program buffers, then scratch
 *   COIL_OUTPUTS   the buffer ids of the function's outputs, in order
 *   COIL_LAUNCHES  the launches in order: kernel, grid, num_warps, and the
 *                  arguments in parameter order (pointers name buffer ids)
 * and coil_launch(bufs) / coil_run(inputs), which run them.
 *
 * --harness appends a standalone script: it draws the inputs by coil
 * run's rules, runs the kernels, checks every output against the function
 * run in eager PyTorch (its source is embedded), and on a GPU times the
 * kernels, eager and torch.compile with triton.testing.do_bench against
 * the device's read bandwidth (a large torch.sum); the GPU dialect's times
 * each also after a clean flush, against a pure read of the same bytes
 * timed both ways.  Under TRITON_INTERPRET=1 it runs on the CPU (--device
 * cpu).
 *
 * Requires: the plan the kernels were printed from.  Guarantees: the
 * tables are the plan's launches and scratch, as coil's executor (run.c)
 * reads them; prints with print.c's literals and calls nothing else. */
#include <string.h>

#include "triton/triton.h"

static void shape_tuple(StrBuf *sb, int ndim, const int64_t *shape) {
  sb_putc(sb, '(');
  for (int i = 0; i < ndim; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (ndim == 1) sb_putc(sb, ',');
  sb_putc(sb, ')');
}

static const char *dist_name(Dist d) {
  switch (d) {
  case DIST_UNIFORM: return "uniform";
  case DIST_ONES: return "ones";
  case DIST_ARANGE: return "arange";
  default: return "randn";
  }
}

/* Some load of the module goes through a tensor descriptor. */
static bool uses_descriptors(const Compiled *c, const TritonPlan *plan) {
  for (int i = 0; i < c->program.nkernels; i++) {
    const TKernel *tk = &plan->kern[i];
    for (int v = 0; tk->desc && v < c->program.kernels[i].nvals; v++)
      if (tk->desc[v]) return true;
  }
  return false;
}

/* One launch as a dict of COIL_LAUNCHES (pad: more indent, in COIL_TUNE);
 * `name` the function it calls. */
static void launch_dict(StrBuf *sb, const TritonLaunch *L, const char *name, const char *pad) {
  sb_printf(sb, "%s    {'kernel': '%s', 'grid': (%lld, %lld, %lld), 'num_warps': %d,", pad, name, (long long)L->grid[0],
            (long long)L->grid[1], (long long)L->grid[2], L->num_warps);
  if (L->num_stages) sb_printf(sb, " 'num_stages': %d,", L->num_stages);
  sb_printf(sb, "\n%s     'args': [", pad);
  for (int j = 0; j < L->nargs; j++) {
    const TritonArg *A = &L->args[j];
    if (j && j % 4 == 0) sb_printf(sb, "\n%s              ", pad);
    else if (j) sb_putc(sb, ' ');
    if (A->is_ptr) sb_printf(sb, "('%s', 'ptr', %d),", A->name, A->buf);
    else sb_printf(sb, "('%s', 'constexpr', %lld),", A->name, (long long)A->value);
  }
  sb_puts(sb, "]},\n");
}

/* --autotune: COIL_TUNE, per tuned kernel its launches in COIL_LAUNCHES
 * and its candidates' launches (tune_fn: the functions they call). */
static void tune_table(StrBuf *sb, const TritonPlan *plan, const char *const *tune_fn) {
  sb_puts(sb, "# --autotune: per tuned kernel, its launches COIL_LAUNCHES[first:first + count] and the\n"
              "# candidates that may replace them, the model's first (launches as in COIL_LAUNCHES,\n"
              "# 'num_stages' where one sets Triton's); coil_tune chooses on the first call\n"
              "COIL_TUNE = [\n");
  int at = 0;
  for (int u = 0; u < plan->ntune; u++) {
    const TritonTune *T = &plan->tune[u];
    sb_printf(sb, "    {'kernel': '%s', 'first': %d, 'count': %d, 'candidates': [\n", plan->launches[T->first].kernel, T->first,
              T->nlaunches);
    for (int j = 0; j < T->ncand; j++) {
      const TritonCandidate *C = &T->cand[j];
      sb_puts(sb, "        {'label': ");
      tri_pystr(sb, C->label);
      sb_puts(sb, ", 'launches': [\n");
      for (int l = 0; l < C->nlaunches; l++, at++) launch_dict(sb, &C->launches[l], tune_fn[at], "        ");
      sb_puts(sb, "        ]},\n");
    }
    sb_puts(sb, "    ]},\n");
  }
  sb_puts(sb, "]\n");
}

/* The model's launches, run in order. */
static const char bind_text[] =
    "\n\n"
    "def coil_bind(bufs):\n"
    "    \"\"\"The launches bound to tensors (bufs[i] is buffer i of COIL_BUFFERS).\"\"\"\n"
    "    calls = []\n"
    "    for launch in COIL_LAUNCHES:\n"
    "        kernel = globals()[launch['kernel']][launch['grid']]\n"
    "        args = [bufs[v] if kind == 'ptr' else v for _, kind, v in launch['args']]\n"
    "        calls.append((kernel, args, launch['num_warps']))\n"
    "    return calls\n"
    "\n\n"
    "def coil_launch(bufs):\n"
    "    \"\"\"Run every kernel, in order, on the buffers; an index out of range raises\n"
    "    IndexError (the kernels' status, read after them: one synchronisation).\"\"\"\n"
    "    for kernel, args, num_warps in coil_bind(bufs):\n"
    "        kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n"
    "    if COIL_STATUS is not None:\n"
    "        failed = int(bufs[COIL_STATUS].item())\n"
    "        if failed:\n"
    "            raise IndexError(COIL_INDEX_ERRORS.get(failed, 'index out of range'))\n";

/* --autotune: the launches of each tuned kernel are its chosen
 * candidate's.  The first call chooses (coil_tune): from the cache beside
 * the module, else by timing every candidate on copies of the buffers the
 * kernel writes (so a kernel that reads what it writes is timed on its
 * own copy and the real run happens once), then runs the choice.  The
 * cache is JSON, written to a temp file renamed over it; a corrupt file or
 * a stale entry is ignored with a warning and rewritten.  Python's
 * logging, logger 'coil.autotune', never print: the module is a library
 * (the torch.compile backend imports it). */
/* in pieces: C11 promises string literals of 4095 characters, no more */
static const char *const autotune_text[] = {
    "\n"
    "\n"
    "# ---- autotune (coil emit --autotune; docs/triton.md, Autotune) ----\n"
    "import functools\n"
    "import hashlib\n"
    "import inspect\n"
    "import json\n"
    "import logging\n"
    "import os\n"
    "import statistics\n"
    "import tempfile\n"
    "import threading\n"
    "import time\n"
    "\n"
    "coil_log = logging.getLogger('coil.autotune')\n"
    "# Times one candidate: coil_tune_timer(run, device, kernel, candidate) -> ms.  None: do_bench on\n"
    "# CUDA, the median of three runs by the wall clock elsewhere.  Tests set it to count the timings.\n"
    "coil_tune_timer = None\n"
    "# This process's choice (an index into 'candidates') per entry of COIL_TUNE\n"
    "coil_tuned = {}\n"
    "coil_tune_lock = threading.RLock()\n"
    "COIL_TUNE_AT = {t['first']: u for u, t in enumerate(COIL_TUNE)}\n",
    "\n"
    "\n"
    "def coil_tune_mode():\n"
    "    \"\"\"COIL_AUTOTUNE: '0' runs the model's choice (nothing timed, the cache neither read nor\n"
    "    written); 'redo' times again and rewrites the cache's entries; otherwise the cache's\n"
    "    choice, timing what it lacks.\"\"\"\n"
    "    mode = os.environ.get('COIL_AUTOTUNE', '1').strip().lower()\n"
    "    return 'off' if mode in ('0', 'off', 'false', 'no') else 'redo' if mode == 'redo' else 'on'\n",
    "\n"
    "\n"
    "def coil_tune_path():\n"
    "    \"\"\"The cache file: COIL_AUTOTUNE_CACHE, else beside this module (NAME.autotune.json); None\n"
    "    for a module without a file (the choices then last for the process).\"\"\"\n"
    "    path = os.environ.get('COIL_AUTOTUNE_CACHE')\n"
    "    if path:\n"
    "        return path\n"
    "    here = globals().get('__file__')\n"
    "    return os.path.splitext(here)[0] + '.autotune.json' if here else None\n",
    "\n"
    "\n"
    "def coil_tune_key(u, bufs):\n"
    "    \"\"\"What a choice depends on: the kernel's name, a hash of its candidates (their launches and\n"
    "    the source of their functions), the device (and Triton's version), and its arguments'\n"
    "    dtypes, shapes and strides.\"\"\"\n"
    "    tune = COIL_TUNE[u]\n"
    "    h = hashlib.sha256(repr(tune['candidates']).encode())\n"
    "    for name in sorted({launch['kernel'] for cand in tune['candidates'] for launch in cand['launches']}):\n"
    "        fn = globals()[name]\n"
    "        h.update(inspect.getsource(getattr(fn, 'fn', fn)).encode())\n"
    "    args, device = [], None\n"
    "    for launch in COIL_LAUNCHES[tune['first']:tune['first'] + tune['count']]:\n"
    "        for _, kind, v in launch['args']:\n"
    "            if kind == 'ptr':\n"
    "                t = bufs[v]\n"
    "                device = device or (torch.cuda.get_device_name(t.device) if t.is_cuda else t.device.type)\n"
    "                args.append(f\"{str(t.dtype).replace('torch.', '')}{list(t.shape)}{tuple(t.stride())}\")\n"
    "    return {'kernel': tune['kernel'], 'source': h.hexdigest()[:16],\n"
    "            'device': f'{device}, triton {triton.__version__}', 'args': ' '.join(args)}\n",
    "\n"
    "\n"
    "def coil_tune_read(path, quiet=False):\n"
    "    \"\"\"The cache's entries ({} when there is none); a corrupt cache is ignored with a warning.\"\"\"\n"
    "    if not path or not os.path.exists(path):\n"
    "        return {}\n"
    "    try:\n"
    "        with open(path) as f:\n"
    "            data = json.load(f)\n"
    "        if not isinstance(data, dict) or data.get('version') != 1 or not isinstance(data.get('entries'), dict):\n"
    "            raise ValueError('not a coil autotune cache of version 1')\n"
    "        return data['entries']\n"
    "    except (OSError, ValueError) as e:  # json's errors are ValueErrors\n"
    "        if not quiet:\n"
    "            coil_log.warning('coil autotune: ignoring the corrupt cache %s (%s); it will be rewritten', path, e)\n"
    "        return {}\n",
    "\n"
    "\n"
    "def coil_tune_write(path, name, entry):\n"
    "    \"\"\"Put entry under name and drop the entries it makes stale (the same kernel, device and\n"
    "    arguments, another source), in a temp file beside the cache renamed over it: no reader\n"
    "    ever sees half a file.\"\"\"\n"
    "    same = ('kernel', 'device', 'args')\n"
    "    entries = {k: e for k, e in coil_tune_read(path, quiet=True).items()\n"
    "               if not (isinstance(e, dict) and all(e.get(f) == entry[f] for f in same))}\n"
    "    entries[name] = entry\n"
    "    tmp = None\n"
    "    try:\n"
    "        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),\n"
    "                                   prefix=os.path.basename(path) + '.', suffix='.tmp')\n"
    "        with os.fdopen(fd, 'w') as f:\n"
    "            json.dump({'version': 1, 'entries': entries}, f, indent=1, sort_keys=True)\n"
    "            f.flush()\n"
    "            os.fsync(f.fileno())\n"
    "        os.replace(tmp, path)\n"
    "    except OSError as e:\n"
    "        coil_log.warning('coil autotune: cannot write the cache %s: %s (the choice lasts for this process)', path, e)\n"
    "        if tmp and os.path.exists(tmp):\n"
    "            os.unlink(tmp)\n",
    "\n"
    "\n"
    "def coil_bind_launches(launches, bufs):\n"
    "    \"\"\"Launches bound to tensors: (kernel, args, num_warps) each.\"\"\"\n"
    "    calls = []\n"
    "    for launch in launches:\n"
    "        kernel = globals()[launch['kernel']][launch['grid']]\n"
    "        if launch.get('num_stages'):\n"
    "            kernel = functools.partial(kernel, num_stages=launch['num_stages'])\n"
    "        args = [bufs[v] if kind == 'ptr' else v for _, kind, v in launch['args']]\n"
    "        calls.append((kernel, args, launch['num_warps']))\n"
    "    return calls\n",
    "\n"
    "\n"
    "def coil_tune_default_timer(run, device, kernel, candidate):\n"
    "    if device.type == 'cuda':\n"
    "        from triton.testing import do_bench\n"
    "        return do_bench(run, warmup=10, rep=50, return_mode='median')\n"
    "    times = []\n"
    "    for _ in range(3):\n"
    "        t0 = time.perf_counter()\n"
    "        run()\n"
    "        times.append((time.perf_counter() - t0) * 1e3)\n"
    "    return statistics.median(times)\n",
    "\n"
    "\n"
    "def coil_tune_time(u, bufs):\n"
    "    \"\"\"Each candidate's time in ms, run on copies of the buffers the kernel writes (what it only\n"
    "    reads is shared); a candidate that fails (out of registers or shared memory) times inf,\n"
    "    with a warning.\"\"\"\n"
    "    tune = COIL_TUNE[u]\n"
    "    work = list(bufs)\n"
    "    for cand in tune['candidates']:\n"
    "        for launch in cand['launches']:\n"
    "            for name, kind, v in launch['args']:\n"
    "                if kind == 'ptr' and not name.startswith('in_ptr') and work[v] is bufs[v]:\n"
    "                    work[v] = bufs[v].clone()\n"
    "    device = next(bufs[v] for launch in tune['candidates'][0]['launches']\n"
    "                  for _, kind, v in launch['args'] if kind == 'ptr').device\n"
    "    timer = coil_tune_timer or coil_tune_default_timer\n"
    "    times = []\n"
    "    for c, cand in enumerate(tune['candidates']):\n"
    "        calls = coil_bind_launches(cand['launches'], work)\n"
    "\n"
    "        def run(calls=calls):\n"
    "            for kernel, args, num_warps in calls:\n"
    "                kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n"
    "        try:\n"
    "            run()  # compiles it\n"
    "            times.append(float(timer(run, device, tune['kernel'], c)))\n"
    "        except Exception as e:  # the model's must run; another may not (registers, shared memory)\n"
    "            if c == 0:\n"
    "                raise\n"
    "            coil_log.warning('coil autotune: %s: candidate %d (%s) failed: %s: %s', tune['kernel'], c,\n"
    "                             cand['label'], type(e).__name__, (str(e).splitlines() or [''])[0])\n"
    "            times.append(float('inf'))\n"
    "    return times\n",
    "\n"
    "\n"
    "def coil_tune_choose(u, bufs):\n"
    "    \"\"\"Tuned kernel u's candidate: the model's (COIL_AUTOTUNE=0), the cache's, or the fastest,\n"
    "    which the cache then keeps.\"\"\"\n"
    "    tune = COIL_TUNE[u]\n"
    "    mode = coil_tune_mode()\n"
    "    if mode == 'off':\n"
    "        return 0\n"
    "    path = coil_tune_path()\n"
    "    key = coil_tune_key(u, bufs)\n"
    "    name = ' | '.join(key[f] for f in ('kernel', 'source', 'device', 'args'))\n"
    "    if mode == 'on' and path:\n"
    "        entries = coil_tune_read(path)\n"
    "        entry = entries.get(name)\n"
    "        if entry is not None:\n"
    "            c = entry.get('choice') if isinstance(entry, dict) else None\n"
    "            if type(c) is int and 0 <= c < len(tune['candidates']) and entry.get('label') == tune['candidates'][c]['label']:\n"
    "                coil_log.debug('coil autotune: %s: %s (cached in %s)', tune['kernel'], entry['label'], path)\n"
    "                return c\n"
    "            coil_log.warning('coil autotune: ignoring the stale entry for %s in %s (its choice is no '\n"
    "                             'candidate of this module); timing again', tune['kernel'], path)\n"
    "        elif any(isinstance(e, dict) and all(e.get(f) == key[f] for f in ('kernel', 'device', 'args'))\n"
    "                 for e in entries.values()):\n"
    "            coil_log.warning('coil autotune: ignoring the stale entry for %s in %s (its source or '\n"
    "                             'candidates changed); timing again', tune['kernel'], path)\n"
    "    times = coil_tune_time(u, bufs)\n"
    "    best = min(range(len(times)), key=times.__getitem__)\n"
    "    coil_log.info('coil autotune: %s: %s, %.4f ms (the model\\'s: %.4f ms)', tune['kernel'],\n"
    "                  tune['candidates'][best]['label'], times[best], times[0])\n"
    "    if path:\n"
    "        coil_tune_write(path, name, dict(key, choice=best, label=tune['candidates'][best]['label'],\n"
    "                                         times_ms=[t if t != float('inf') else None for t in times]))\n"
    "    return best\n",
    "\n"
    "\n"
    "def coil_chosen_launches():\n"
    "    \"\"\"COIL_LAUNCHES with each tuned kernel's launches replaced by its chosen candidate's.\"\"\"\n"
    "    out, i = [], 0\n"
    "    while i < len(COIL_LAUNCHES):\n"
    "        u = COIL_TUNE_AT.get(i)\n"
    "        if u is None:\n"
    "            out.append(COIL_LAUNCHES[i])\n"
    "            i += 1\n"
    "        else:\n"
    "            out += COIL_TUNE[u]['candidates'][coil_tuned[u]]['launches']\n"
    "            i += COIL_TUNE[u]['count']\n"
    "    return out\n",
    "\n"
    "\n"
    "def coil_tune(bufs):\n"
    "    \"\"\"Run every launch in order on bufs, choosing each tuned kernel's candidate as it comes,\n"
    "    when its inputs are computed (coil_tune_choose).\"\"\"\n"
    "    with coil_tune_lock:\n"
    "        i = 0\n"
    "        while i < len(COIL_LAUNCHES):\n"
    "            u = COIL_TUNE_AT.get(i)\n"
    "            if u is None:\n"
    "                launches = [COIL_LAUNCHES[i]]\n"
    "                i += 1\n"
    "            else:\n"
    "                if u not in coil_tuned:\n"
    "                    coil_tuned[u] = coil_tune_choose(u, bufs)\n"
    "                launches = COIL_TUNE[u]['candidates'][coil_tuned[u]]['launches']\n"
    "                i += COIL_TUNE[u]['count']\n"
    "            for kernel, args, num_warps in coil_bind_launches(launches, bufs):\n"
    "                kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n",
    "\n"
    "\n"
    "def coil_bind(bufs):\n"
    "    \"\"\"The launches bound to tensors (bufs[i] is buffer i of COIL_BUFFERS), each tuned kernel's\n"
    "    as chosen.  Before the choices are made, this runs the launches once on bufs (coil_tune).\"\"\"\n"
    "    if len(coil_tuned) < len(COIL_TUNE):\n"
    "        coil_tune(bufs)\n"
    "    return coil_bind_launches(coil_chosen_launches(), bufs)\n",
    "\n"
    "\n"
    "def coil_launch(bufs):\n"
    "    \"\"\"Run every kernel, in order, on the buffers (the first call chooses the tuned kernels'\n"
    "    candidates); an index out of range raises IndexError (the kernels' status, read after\n"
    "    them: one synchronisation).\"\"\"\n"
    "    if len(coil_tuned) < len(COIL_TUNE):\n"
    "        coil_tune(bufs)\n"
    "    else:\n"
    "        for kernel, args, num_warps in coil_bind_launches(coil_chosen_launches(), bufs):\n"
    "            kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n"
    "    if COIL_STATUS is not None:\n"
    "        failed = int(bufs[COIL_STATUS].item())\n"
    "        if failed:\n"
    "            raise IndexError(COIL_INDEX_ERRORS.get(failed, 'index out of range'))\n",
    NULL,
};

void triton_module_tables(StrBuf *sb, const Compiled *c, const TritonPlan *plan, const char *const *tune_fn) {
  const Graph *g = &c->graph;
  const Program *p = &c->program;
  sb_puts(sb, "\n\n# ---- what coil chose: read by coil_launch, the harness and coil's executor ----\n");
  sb_printf(sb, "COIL_TARGET = '%s'\n", triton_target_name(plan->target));
  sb_puts(sb, "COIL_FUNCTION = ");
  tri_pystr(sb, g->fn_name);
  sb_puts(sb, "\nCOIL_SOURCE_FILE = ");
  tri_pystr(sb, c->module.file);
  sb_puts(sb, "\n# parameters: name, torch dtype, shape, distribution\nCOIL_INPUTS = [\n");
  for (int i = 0; i < g->ninputs; i++) {
    const InputSpec *s = &g->inputs[i];
    sb_puts(sb, "    (");
    tri_pystr(sb, s->name);
    sb_printf(sb, ", '%s', ", tri_torch(s->dtype));
    shape_tuple(sb, s->ndim, s->shape);
    if (s->dist == DIST_UNIFORM) sb_printf(sb, ", ('uniform', %.17g, %.17g)),\n", s->lo, s->hi);
    else sb_printf(sb, ", ('%s',)),\n", dist_name(s->dist));
  }
  sb_puts(sb, "]\n# each parameter's strides in elements: the kernels index its storage by them\nCOIL_INPUT_STRIDES = [");
  for (int i = 0; i < g->ninputs; i++) {
    sb_puts(sb, i ? ", " : "");
    shape_tuple(sb, g->inputs[i].ndim, g->inputs[i].stride);
  }
  sb_puts(sb, "]\n");
  sb_puts(sb, "# buffers by id: name, kind (input, output, temp, scratch, zeroed: scratch that is zero before\n"
              "# the launches, which leave it zero), torch dtype, shape, index (input: the parameter;\n"
              "# output: the output number)\nCOIL_BUFFERS = [\n");
  for (int b = 0; b < p->nbufs; b++) {
    const Buffer *B = &p->bufs[b];
    sb_puts(sb, "    (");
    tri_pystr(sb, B->name);
    sb_printf(sb, ", '%s', '%s', ", B->kind == BUF_INPUT ? "input" : B->kind == BUF_OUTPUT ? "output" : "temp", tri_torch(B->dtype));
    shape_tuple(sb, B->ndim, B->shape);
    sb_printf(sb, ", %d),  # %d\n", B->kind == BUF_TEMP ? -1 : B->index, b);
  }
  for (int i = 0; i < plan->nscratch; i++) {
    const TritonScratch *S = &plan->scratch[i];
    sb_puts(sb, "    (");
    tri_pystr(sb, S->name);
    sb_printf(sb, ", '%s', '%s', (%lld,), -1),  # %d\n", S->zeroed ? "zeroed" : "scratch", tri_torch(S->dtype), (long long)S->numel,
              plan->nbufs + i);
  }
  sb_puts(sb, "]\n");
  /* outputs by output number */
  sb_puts(sb, "COIL_OUTPUTS = [");
  int nout = 0;
  for (int b = 0; b < p->nbufs; b++)
    if (p->bufs[b].kind == BUF_OUTPUT) nout++;
  for (int o = 0; o < nout; o++)
    for (int b = 0; b < p->nbufs; b++)
      if (p->bufs[b].kind == BUF_OUTPUT && p->bufs[b].index == o) sb_printf(sb, "%s%d", o ? ", " : "", b);
  sb_puts(sb, "]\n");
  /* the status (TritonPlan.status) and what each failed check means */
  if (plan->status >= 0) {
    sb_printf(sb, "# a failed index check's graph node + 1 goes to buffer COIL_STATUS (zero before the launches)\n"
                  "COIL_STATUS = %d\nCOIL_INDEX_ERRORS = {\n", plan->status);
    Arena tmp = {0};
    bool *seen = ARENA_ARRAY(&tmp, bool, c->graph.nnodes + 1);
    for (int k = 0; k < plan->nlaunches; k++) {
      const Kernel *K = &c->planned->kernels[plan->launches[k].src];
      /* the checks of indexed loads, then of indexed stores */
      for (int i = 0; i < K->nvals + K->nstores; i++) {
        bool load = i < K->nvals;
        if (load ? K->vals[i].op != OP_GATHER : !K->stores[i - K->nvals].indexed) continue;
        int gnode = load ? K->vals[i].gnode : K->stores[i - K->nvals].gnode;
        if (seen[gnode]) continue;
        seen[gnode] = true;
        const GNode *n = c->graph.nodes[gnode];
        sb_printf(sb, "    %d: ", gnode + 1);
        tri_pystr(sb, arena_printf(&tmp, "%s:%d:%d: error: %s", n->loc.file ? n->loc.file : "?", n->loc.line, n->loc.col,
                                   ref_index_message(&tmp, &c->graph, gnode)));
        sb_puts(sb, ",\n");
      }
    }
    sb_puts(sb, "}\n");
    arena_free(&tmp);
  } else {
    sb_puts(sb, "COIL_STATUS = None\nCOIL_INDEX_ERRORS = {}\n");
  }
  /* libdevice flushes subnormal inputs and results to zero unless told not
   * to (Triton's default, enable_reflect_ftz=True): tan, asinh, expm1 and
   * the rest gave 0 for PyTorch's subnormal results on the H200
   * (tests/run/math2.py, 2026-12-02).  Options a Triton does not know are
   * ignored, and the interpreter drops them. */
  sb_puts(sb, "# Triton compile options of every launch: libdevice keeps subnormals, as PyTorch's CUDA math does\n"
              "COIL_LAUNCH_OPTIONS = {'enable_reflect_ftz': False}\n");
  sb_puts(sb, "# launches in order: kernel, grid, num_warps, arguments in parameter order\n"
              "# (('NAME', 'ptr', buffer id) or ('NAME', 'constexpr', value))\nCOIL_LAUNCHES = [\n");
  for (int i = 0; i < plan->nlaunches; i++) launch_dict(sb, &plan->launches[i], plan->launches[i].kernel, "");
  sb_puts(sb, "]\n");
  if (plan->opt.autotune) {
    tune_table(sb, plan, tune_fn);
    for (int i = 0; autotune_text[i]; i++) sb_puts(sb, autotune_text[i]);
  } else {
    sb_puts(sb, bind_text);
  }
  sb_puts(sb,
          "\n\n"
          "def coil_extent(shape, stride):\n"
          "    \"\"\"The elements a storage with these strides spans.\"\"\"\n"
          "    return 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride))\n"
          "\n\n"
          "def coil_layout(t, stride, copy=False):\n"
          "    \"\"\"t with the strides the kernels index it by: t itself when it has them (a view\n"
          "    is read in place), else (or with copy) its values put where the strides say in a\n"
          "    storage of their extent.  Elements that the strides put in one place (stride 0)\n"
          "    must be equal in t, as they are in a view that shares them.\"\"\"\n"
          "    shape = tuple(t.shape)\n"
          "    if not copy and (0 in shape or all(n <= 1 or a == b for n, a, b in zip(shape, t.stride(), stride))):\n"
          "        return t\n"
          "    n = coil_extent(shape, stride)\n"
          "    storage = torch.empty(n, dtype=t.dtype, device=t.device)\n"
          "    where = torch.arange(n, device=t.device).as_strided(shape, stride)\n"
          "    storage[where.reshape(-1)] = t.reshape(-1)\n"
          "    return storage.as_strided(shape, stride)\n"
          "\n\n"
          "def coil_alloc(inputs, device=None):\n"
          "    \"\"\"Every buffer for one run: the inputs as given (laid out by COIL_INPUT_STRIDES),\n"
          "    the others empty.\"\"\"\n"
          "    if device is None:\n"
          "        device = inputs[0].device\n"
          "    bufs = []\n"
          "    for name, kind, dtype, shape, index in COIL_BUFFERS:\n"
          "        if kind == 'input':\n"
          "            bufs.append(coil_layout(inputs[index], COIL_INPUT_STRIDES[index]))\n");
  if (uses_descriptors(c, plan))
    sb_puts(sb, "            if bufs[-1].data_ptr() % 16:  # a tensor descriptor's base must be 16-byte aligned\n"
                "                bufs[-1] = coil_layout(bufs[-1], COIL_INPUT_STRIDES[index], copy=True)\n");
  sb_puts(sb,
          "        elif kind == 'zeroed':\n"
          "            bufs.append(torch.zeros(shape, dtype=getattr(torch, dtype), device=device))\n"
          "        else:\n"
          "            bufs.append(torch.empty(shape, dtype=getattr(torch, dtype), device=device))\n"
          "    if COIL_STATUS is not None:\n"
          "        bufs[COIL_STATUS].zero_()\n"
          "    return bufs\n"
          "\n\n"
          "def coil_run(inputs):\n"
          "    \"\"\"The function's outputs, computed by the kernels.\"\"\"\n"
          "    bufs = coil_alloc(inputs)\n"
          "    coil_launch(bufs)\n"
          "    return [bufs[i] for i in COIL_OUTPUTS]\n");
}

static const char harness_text[] =
    "\n\n# ---- the standalone harness (coil emit --harness) ----\n"
    "import argparse\n"
    "import json\n"
    "import math\n"
    "import os\n"
    "import sys\n"
    "\n"
    "# (rtol, atol) per output dtype, as tests/torch/compare.py; f32/f64 grow with the\n"
    "# square root of the reduction length, whose summation order differs from eager's\n"
    "COIL_TOL = {'float32': (1e-5, 1e-5), 'float64': (1e-7, 1e-7),\n"
    "            'float16': (1e-3, 1e-3), 'bfloat16': (1.6e-2, 1e-2)}\n"
    "\n\n"
    "def coil_make_inputs(device, seed=0):\n"
    "    \"\"\"The parameters, drawn by coil run's rules: randn (integers: uniform in [-8, 8],\n"
    "    bool: a fair coin), uniform(lo, hi) (integers: [lo, hi)), ones, arange; each fills\n"
    "    the storage its strides span, and the parameter is the view of it.\"\"\"\n"
    "    g = torch.Generator().manual_seed(seed)\n"
    "    out = []\n"
    "    for (name, dtype, shape, dist), stride in zip(COIL_INPUTS, COIL_INPUT_STRIDES):\n"
    "        dt = getattr(torch, dtype)\n"
    "        n = coil_extent(shape, stride)\n"
    "        kind = dist[0]\n"
    "        if kind == 'ones':\n"
    "            t = torch.ones(n, dtype=torch.float64)\n"
    "        elif kind == 'arange':\n"
    "            t = torch.arange(n, dtype=torch.float64)\n"
    "            if dt == torch.bool:\n"
    "                t = t.remainder(2)\n"
    "        elif kind == 'uniform':\n"
    "            t = torch.rand(n, generator=g, dtype=torch.float64) * (dist[2] - dist[1]) + dist[1]\n"
    "            if not dt.is_floating_point:\n"
    "                t = t.floor()\n"
    "        elif dt == torch.bool:\n"
    "            t = (torch.rand(n, generator=g, dtype=torch.float64) < 0.5).double()\n"
    "        elif not dt.is_floating_point:\n"
    "            t = torch.randint(-8, 9, (n,), generator=g).double()\n"
    "        else:\n"
    "            t = torch.randn(n, generator=g, dtype=torch.float64)\n"
    "        out.append(t.to(dt).to(device).as_strided(shape, stride))\n"
    "    return out\n"
    "\n\n";
/* The NPU dialect's, unchanged; the GPU dialect's defines the source in a
 * module that sys.modules holds, since torch.compile (2.11) looks a
 * function's module up by name and failed on 'coil_source'. */
static const char harness_fn_npu[] =
    "def coil_function():\n"
    "    \"\"\"The original function, from the source embedded below.\"\"\"\n"
    "    ns = {'__name__': 'coil_source'}\n"
    "    exec(compile(COIL_SOURCE, COIL_SOURCE_FILE, 'exec'), ns)\n"
    "    return ns[COIL_FUNCTION]\n"
    ;
static const char harness_fn_gpu[] =
    "def coil_function():\n"
    "    \"\"\"The original function, from the source embedded below, in a module that\n"
    "    sys.modules holds (torch.compile looks a function's module up by name).\"\"\"\n"
    "    import types\n"
    "    mod = types.ModuleType('coil_source')\n"
    "    sys.modules['coil_source'] = mod\n"
    "    exec(compile(COIL_SOURCE, COIL_SOURCE_FILE, 'exec'), mod.__dict__)\n"
    "    return getattr(mod, COIL_FUNCTION)\n"
    ;
static const char harness_check[] =
    "\n"
    "\n"
    "# notes of the last coil_check: outputs that CPU eager, not the device's eager, confirms\n"
    "COIL_CHECK_NOTES = []\n"
    "\n"
    "\n"
    "def coil_compare(got, want, max_in):\n"
    "    \"\"\"{output number: problem} where got differs from want beyond the dtype's\n"
    "    tolerance (f32 and f64 tolerances grow with the elements summed into each\n"
    "    output), or {None: problem} when the outputs do not pair up.\"\"\"\n"
    "    want = list(want) if isinstance(want, (tuple, list)) else [want]\n"
    "    if len(want) != len(got):\n"
    "        return {None: f'{len(got)} outputs, eager gives {len(want)}'}\n"
    "    problems = {}\n"
    "    for k, (g, w) in enumerate(zip(got, want)):\n"
    "        if tuple(g.shape) != tuple(w.shape) or g.dtype != w.dtype:\n"
    "            problems[k] = f'out{k}: {g.dtype}{list(g.shape)}, eager gives {w.dtype}{list(w.shape)}'\n"
    "            continue\n"
    "        rtol, atol = COIL_TOL.get(str(w.dtype).replace('torch.', ''), (0.0, 0.0))\n"
    "        if w.dtype in (torch.float32, torch.float64):\n"
    "            scale = max(1.0, math.sqrt(max(1, max_in // max(1, w.numel()))) / 4)\n"
    "            rtol, atol = rtol * scale, atol * scale\n"
    "        try:\n"
    "            torch.testing.assert_close(g.cpu(), w.cpu(), rtol=rtol, atol=atol, equal_nan=True)\n"
    "        except AssertionError as e:\n"
    "            lines = [l.strip() for l in str(e).splitlines() if l.strip()]\n"
    "            problems[k] = f'out{k} ({w.dtype}, rtol={rtol:.3g}, atol={atol:.3g}): ' + '; '.join(lines[:4])\n"
    "    return problems\n"
    "\n"
    "\n"
    "def coil_check(device='cuda', seed=0):\n"
    "    \"\"\"Run the kernels and the function in eager PyTorch on the same inputs.\n"
    "    Returns the problems found: an empty list when every output matches.\n"
    "\n"
    "    coil computes what PyTorch's CPU kernels compute, so on another device an\n"
    "    output that differs from that device's eager is checked once more against\n"
    "    CPU eager, and passes if it matches there (CUDA's bf16 scans round at every\n"
    "    step, its writes at repeated indices keep another write, its keepdim aminmax\n"
    "    of a 0-d tensor has another shape).  Where the device's eager raises (CUDA's\n"
    "    max_pool2d takes no integers; aten factories make CPU tensors), CPU eager\n"
    "    is the reference.  COIL_CHECK_NOTES says which outputs CPU eager decided.\"\"\"\n"
    "    COIL_CHECK_NOTES.clear()\n"
    "    inputs = coil_make_inputs(device, seed)\n"
    "    got = coil_run(inputs)\n"
    "    max_in = max([t.numel() for t in inputs] + [1])\n"
    "\n"
    "    def eager(dev, args):\n"
    "        # factory calls in the function (torch.zeros, arange) make tensors on dev\n"
    "        with torch.no_grad(), torch.device(dev):\n"
    "            return coil_function()(*args)\n"
    "\n"
    "    if device == 'cpu':\n"
    "        return list(coil_compare(got, eager('cpu', inputs), max_in).values())\n"
    "    try:\n"
    "        problems = coil_compare(got, eager(device, inputs), max_in)\n"
    "    except Exception as e:\n"
    "        problems = {None: f'eager on {device} raised {type(e).__name__}: {str(e).splitlines()[0][:160]}'}\n"
    "    if not problems:\n"
    "        return []\n"
    "    cpu_problems = coil_compare(got, eager('cpu', [t.cpu() for t in inputs]), max_in)\n"
    "    if None in cpu_problems:\n"
    "        return [cpu_problems[None]]\n"
    "    for k, p in problems.items():\n"
    "        if k is None:\n"
    "            COIL_CHECK_NOTES.append(p + '; the outputs match CPU eager' if not cpu_problems else p)\n"
    "        elif k not in cpu_problems:\n"
    "            COIL_CHECK_NOTES.append(f'out{k} matches CPU eager, not {device} eager')\n"
    "    if None in problems:\n"
    "        return list(cpu_problems.values())\n"
    "    # an output fails where it matches neither eager\n"
    "    return [p for k, p in problems.items() if k in cpu_problems]\n"
    "\n"
    ;
static const char harness_bench[] =
    "\n\n"
    "def coil_bench(device='cuda', seed=0, rep=200, compile_=True):\n"
    "    \"\"\"Median times (triton.testing.do_bench) of the kernels, eager and torch.compile,\n"
    "    in GB/s of inputs read and outputs written, against the read bandwidth of a\n"
    "    torch.sum over 2 GiB.\"\"\"\n"
    "    from triton.testing import do_bench\n"
    "    inputs = coil_make_inputs(device, seed)\n"
    "    bufs = coil_alloc(inputs)\n"
    "    calls = coil_bind(bufs)\n"
    "\n"
    "    def run_coil():\n"
    "        for kernel, args, num_warps in calls:\n"
    "            kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n"
    "\n"
    "    fn = coil_function()\n"
    "    # bytes read: an element that several share (stride 0) once\n"
    "    nbytes = sum(min(coil_extent(t.shape, s), math.prod(n for n, k in zip(t.shape, s) if k)) * t.element_size()\n"
    "                 for t, s in zip(inputs, COIL_INPUT_STRIDES))\n"
    "    nbytes += sum(bufs[i].numel() * bufs[i].element_size() for i in COIL_OUTPUTS)\n"
    "    big = torch.empty(1 << 29, dtype=torch.float32, device=device).fill_(1.0)\n"
    "    t_sum = do_bench(lambda: big.sum(), rep=rep, return_mode='median')\n"
    "    read_bw = big.numel() * 4 / (t_sum * 1e-3)\n"
    "    del big\n"
    "    rows = []\n"
    "    with torch.no_grad():\n"
    "        rows.append(('coil ' + COIL_TARGET, do_bench(run_coil, rep=rep, return_mode='median')))\n"
    "        rows.append(('torch eager', do_bench(lambda: fn(*inputs), rep=rep, return_mode='median')))\n"
    "        if compile_:\n"
    "            try:\n"
    "                compiled = torch.compile(fn)\n"
    "                compiled(*inputs)\n"
    "                rows.append(('torch.compile', do_bench(lambda: compiled(*inputs), rep=rep, return_mode='median')))\n"
    "            except Exception as e:  # report, do not stop the table\n"
    "                print(f'torch.compile failed: {type(e).__name__}: {e}', file=sys.stderr)\n"
    "    return nbytes, read_bw, rows\n"
    ;
/* The GPU dialect's timing: each callable by do_bench and after a clean
 * flush (CUDA events around each call after reading a 256 MB buffer: a
 * cold L2 with nothing to write back), against a read-only Triton kernel
 * of the same bytes timed the same two ways (tools/device/gpu_bench.py). */
static const char harness_bench_gpu[] =
    "\n\n"
    "@triton.jit\n"
    "def coil_read_kernel(a_ptr, ws_ptr, N: tl.constexpr, BLOCK: tl.constexpr, ITERS: tl.constexpr):\n"
    "    # the pure read: each program sums ITERS contiguous blocks\n"
    "    pid = tl.program_id(0)\n"
    "    acc = tl.zeros([BLOCK], tl.float32)\n"
    "    for i in range(ITERS):\n"
    "        offs = (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK)\n"
    "        acc += tl.load(a_ptr + offs, mask=offs < N, other=0.0)\n"
    "    tl.store(ws_ptr + pid, tl.sum(acc, 0))\n"
    "\n\n"
    "def coil_bench(device='cuda', seed=0, rep=200, compile_=True):\n"
    "    \"\"\"Median times of the kernels, eager, torch.compile and a pure read of as many\n"
    "    bytes as the inputs and outputs, each by triton.testing.do_bench and after a\n"
    "    clean flush: rows of (label, do_bench ms, flush ms).\"\"\"\n"
    "    import statistics\n"
    "    from triton.testing import do_bench\n"
    "    inputs = coil_make_inputs(device, seed)\n"
    "    bufs = coil_alloc(inputs)\n"
    "    calls = coil_bind(bufs)\n"
    "\n"
    "    def run_coil():\n"
    "        for kernel, args, num_warps in calls:\n"
    "            kernel(*args, num_warps=num_warps, **COIL_LAUNCH_OPTIONS)\n"
    "\n"
    "    fn = coil_function()\n"
    "    # bytes read: an element that several share (stride 0) once\n"
    "    nbytes = sum(min(coil_extent(t.shape, s), math.prod(n for n, k in zip(t.shape, s) if k)) * t.element_size()\n"
    "                 for t, s in zip(inputs, COIL_INPUT_STRIDES))\n"
    "    nbytes += sum(bufs[i].numel() * bufs[i].element_size() for i in COIL_OUTPUTS)\n"
    "    flush = torch.ones(1 << 26, dtype=torch.float32, device=device)\n"
    "\n"
    "    def flushed(f, reps=30):\n"
    "        times = []\n"
    "        for _ in range(reps):\n"
    "            flush.sum()\n"
    "            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\n"
    "            s.record()\n"
    "            f()\n"
    "            e.record()\n"
    "            torch.cuda.synchronize()\n"
    "            times.append(s.elapsed_time(e))\n"
    "        return statistics.median(times)\n"
    "\n"
    "    def both(f):\n"
    "        f()\n"
    "        torch.cuda.synchronize()\n"
    "        return do_bench(f, rep=rep, return_mode='median'), flushed(f)\n"
    "\n"
    "    rows = []\n"
    "    n = max(1, nbytes // 4)\n"
    "    flat = torch.ones(n, dtype=torch.float32, device=device)\n"
    "    best = None\n"
    "    for block, iters, warps in ((4096, 16, 8), (2048, 8, 4)):\n"
    "        nprog = triton.cdiv(n, block * iters)\n"
    "        ws = torch.empty(nprog, dtype=torch.float32, device=device)\n"
    "        t = both(lambda: coil_read_kernel[(nprog,)](flat, ws, n, BLOCK=block, ITERS=iters, num_warps=warps))\n"
    "        best = t if best is None else (min(best[0], t[0]), min(best[1], t[1]))\n"
    "    del flat\n"
    "    rows.append(('pure read',) + best)\n"
    "    with torch.no_grad():\n"
    "        rows.append(('coil ' + COIL_TARGET,) + both(run_coil))\n"
    "        rows.append(('torch eager',) + both(lambda: fn(*inputs)))\n"
    "        if compile_:\n"
    "            try:\n"
    "                compiled = torch.compile(fn)\n"
    "                compiled(*inputs)\n"
    "                rows.append(('torch.compile',) + both(lambda: compiled(*inputs)))\n"
    "            except Exception as e:  # report, do not stop the table\n"
    "                print(f'torch.compile failed: {type(e).__name__}: {e}', file=sys.stderr)\n"
    "    return nbytes, rows\n"
    ;
/* main() of the standalone script: its start, the same in both dialects,
 * then the timing, which the GPU's harness reports against a read of the
 * same bytes. */
static const char harness_main_head[] =
    "\n\n"
    "def main():\n"
    "    interp = os.environ.get('TRITON_INTERPRET') == '1'\n"
    "    ap = argparse.ArgumentParser(description=f'coil {COIL_TARGET} kernels of {COIL_FUNCTION} '\n"
    "                                 f'({COIL_SOURCE_FILE}): check against eager PyTorch, then time them')\n"
    "    ap.add_argument('--device', default='cpu' if interp else 'cuda',\n"
    "                    help='cuda, or cpu under TRITON_INTERPRET=1 (default: %(default)s)')\n"
    "    ap.add_argument('--seed', type=int, default=0)\n"
    "    ap.add_argument('--rep', type=int, default=200, help='do_bench rep in ms')\n"
    "    ap.add_argument('--no-bench', action='store_true', help='check only')\n"
    "    ap.add_argument('--no-compile', action='store_true', help='do not time torch.compile')\n"
    "    args = ap.parse_args()\n"
    "    if args.device == 'cpu' and not interp:\n"
    "        print('--device cpu runs the kernels in Triton\\'s interpreter: set TRITON_INTERPRET=1', file=sys.stderr)\n"
    "        return 2\n"
    "    problems = coil_check(args.device, args.seed)\n"
    "    name = f'{COIL_SOURCE_FILE}:{COIL_FUNCTION}'\n"
    "    result = {'target': COIL_TARGET, 'function': name, 'device': args.device,\n"
    "              'check': 'ok' if not problems else 'FAIL', 'problems': problems, 'notes': list(COIL_CHECK_NOTES)}\n"
    "    print(f'check {name} ({COIL_TARGET}, {args.device}): ' + ('ok' if not problems else 'FAIL'))\n"
    "    for p in problems:\n"
    "        print('  ' + p)\n"
    "    for n in COIL_CHECK_NOTES:\n"
    "        print('  note: ' + n)\n"
    ;
static const char harness_main_gpu[] =
    "    if not args.no_bench and args.device != 'cpu':\n"
    "        nbytes, rows = coil_bench(args.device, args.seed, args.rep, not args.no_compile)\n"
    "        read = rows[0]\n"
    "        print(f'{nbytes / 1e6:.1f} MB read and written; times in us by do_bench (a dirty L2) / after a clean '\n"
    "              f'flush (a cold, clean L2); % of read: the pure read of as many bytes over the time')\n"
    "        print(f'{\"implementation\":<22}{\"do_bench\":>10}{\"flush\":>10}{\"% of read\":>16}')\n"
    "        for label, t0, t1 in rows:\n"
    "            print(f'{label:<22}{t0 * 1e3:>10.1f}{t1 * 1e3:>10.1f}'\n"
    "                  f'{read[1] / t0 * 100:>8.0f}%{read[2] / t1 * 100:>7.0f}%')\n"
    "        result.update(bytes=nbytes, times_us={label: t0 * 1e3 for label, t0, t1 in rows},\n"
    "                      flush_us={label: t1 * 1e3 for label, t0, t1 in rows})\n"
    "    print('COIL_RESULT ' + json.dumps(result))\n"
    "    return 0 if not problems else 1\n"
    "\n\n"
    "if __name__ == '__main__':\n"
    "    sys.exit(main())\n";
static const char harness_main[] =
    "    if not args.no_bench and args.device != 'cpu':\n"
    "        nbytes, read_bw, rows = coil_bench(args.device, args.seed, args.rep, not args.no_compile)\n"
    "        print(f'{nbytes / 1e6:.1f} MB read and written; device read bandwidth {read_bw / 1e9:.0f} GB/s '\n"
    "              f'(torch.sum over 2 GiB), so the floor is {nbytes / read_bw * 1e6:.1f} us')\n"
    "        print(f'{\"implementation\":<22}{\"time us\":>10}{\"GB/s\":>10}{\"of read bw\":>12}')\n"
    "        for label, ms in rows:\n"
    "            print(f'{label:<22}{ms * 1e3:>10.1f}{nbytes / (ms * 1e-3) / 1e9:>10.0f}'\n"
    "                  f'{nbytes / (ms * 1e-3) / read_bw * 100:>11.1f}%')\n"
    "        result.update(bytes=nbytes, read_bw_gbs=read_bw / 1e9,\n"
    "                      times_us={label: ms * 1e3 for label, ms in rows})\n"
    "    print('COIL_RESULT ' + json.dumps(result))\n"
    "    return 0 if not problems else 1\n"
    "\n\n"
    "if __name__ == '__main__':\n"
    "    sys.exit(main())\n";

void triton_harness(StrBuf *sb, const Compiled *c, const TritonPlan *plan) {
  sb_puts(sb, "\n\n# the source of ");
  sb_puts(sb, c->module.file);
  sb_puts(sb, ", run in eager PyTorch as the reference\nCOIL_SOURCE = ");
  tri_pystr(sb, c->module.text);
  sb_puts(sb, "\n");
  bool gpu = plan->target == TRITON_GPU;
  sb_puts(sb, harness_text);
  sb_puts(sb, gpu ? harness_fn_gpu : harness_fn_npu);
  sb_puts(sb, harness_check);
  sb_puts(sb, gpu ? harness_bench_gpu : harness_bench);
  sb_puts(sb, harness_main_head);
  sb_puts(sb, gpu ? harness_main_gpu : harness_main);
}
