/* Run-time compilation of generated C, with a safe disk cache.
 * See the jit.c section of coil.h for the contract. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu/cpu.h"

/* -fno-math-errno only stops libm from setting errno (so sqrtf inlines);
 * unlike -ffast-math it changes no result and no process-wide FP state.
 * -fwrapv gives int32/int64 arithmetic PyTorch's wrapping semantics. */
static const char FLAGS[] = "-std=c11 -O3 -march=native -fopenmp -fPIC -shared -fwrapv -fno-math-errno";

const char *jit_cc(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

/* With AVX-512, gcc still prefers 256-bit vectors for some CPUs (Sapphire
 * Rapids); 512-bit ones made the exp rows 1.6x faster on the 16-core Intel
 * host and changed nothing on this AMD machine, where gcc already used them
 * (docs/bench.md).  The flags are the cache key's too. */
static bool cpu_has(const char *flag);

/* SLEEF's GNU vector ABI library (Debian's libsleef-dev), where the linker
 * will find it: the generated code's tan, atan2, expm1... then run on
 * vectors (emit.c's prelude_math2, docs/bench.md "Vector math libraries").
 * COIL_NO_SLEEF=1 leaves them libm's scalar calls. */
static bool have_sleef;
static bool find_sleef(void) {
  const char *off = getenv("COIL_NO_SLEEF");
  if (off && *off && strcmp(off, "0")) return false;
  static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib", "/usr/local/lib64"};
  char path[256];
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    snprintf(path, sizeof path, "%s/libsleefgnuabi.so", dirs[i]);
    if (access(path, R_OK) == 0) return true;
  }
  return false;
}

/* -mno-red-zone: gcc 12.2 with -march=native on an AVX-512 CPU placed a
 * kernel's tile accumulator (float acc0[20]) in the red zone of a leaf
 * function at 8 mod 16 and zeroed its last 16 bytes with an aligned
 * vmovdqa: a batch norm's backward over [2, 320, 2, 2] crashed in coil run
 * and under torch.compile (tests/regress/bn_backward_red_zone.py).  Without
 * the red zone a kernel's frame costs one stack adjustment per call. */
#if defined(__x86_64__)
#define NO_RED_ZONE " -mno-red-zone"
#else
#define NO_RED_ZONE ""
#endif

static char flags[sizeof FLAGS + 80];
static void build_flags(void) {
  have_sleef = find_sleef();
  snprintf(flags, sizeof flags, "%s%s%s%s", FLAGS, NO_RED_ZONE, cpu_has("avx512f") ? " -mprefer-vector-width=512" : "",
           have_sleef ? " -DCOIL_SLEEF" : "");
}

/* Built once: the API may compile from several threads at once. */
const char *jit_flags(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_flags);
  return flags;
}

static bool find_in_path(const char *prog, char *out, size_t n) {
  if (strchr(prog, '/')) {
    snprintf(out, n, "%s", prog);
    return access(prog, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t len = end ? (size_t)(end - path) : strlen(path);
    snprintf(out, n, "%.*s/%s", (int)len, path, prog);
    if (len && access(out, X_OK) == 0) return true;
    if (!end) break;
    path = end + 1;
  }
  return false;
}

static void sha256_hex(const void *data, size_t n, char hex[65]) {
  unsigned char md[32];
  unsigned int len = 0;
  EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
  for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
  hex[64] = 0;
}

static CoilErr *mkdir_private(const char *dir) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(tmp, 0700) && errno != EEXIST) return coil_err("cannot create cache directory %s: %s", tmp, strerror(errno));
    *p = '/';
  }
  if (mkdir(tmp, 0700) && errno != EEXIST) return coil_err("cannot create cache directory %s: %s", tmp, strerror(errno));
  struct stat st;
  if (lstat(dir, &st)) return coil_err("cannot use cache directory %s: %s", dir, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return coil_err("cache directory %s is not a directory", dir);
  if (st.st_uid != geteuid())
    return coil_err("cache directory %s is owned by another user (uid %d); refusing to load code from it", dir, (int)st.st_uid);
  if (st.st_mode & 022)
    return coil_err("cache directory %s is writable by other users (mode %03o); refusing to load code from it", dir,
                      (unsigned)(st.st_mode & 0777));
  if (access(dir, W_OK)) return coil_err("cache directory %s is not writable: %s", dir, strerror(errno));
  return NULL;
}

CoilErr *jit_cache_dir(char *out, size_t n) {
  const char *d = getenv("COIL_CACHE_DIR");
  if (d && *d) snprintf(out, n, "%s", d);
  else if ((d = getenv("XDG_CACHE_HOME")) && *d) snprintf(out, n, "%s/coil", d);
  else if ((d = getenv("HOME")) && *d) snprintf(out, n, "%s/.cache/coil", d);
  else return coil_err("no cache directory: set COIL_CACHE_DIR or HOME");
  return mkdir_private(out);
}

/* The CPU's feature flags: -march=native code is only valid on such a CPU. */
static void cpu_flags(StrBuf *sb) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[8192];
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8)) {
      sb_puts(sb, line);
      break;
    }
  fclose(f);
}

/* Whether /proc/cpuinfo's flags line names flag (a whole word). */
static bool cpu_has(const char *flag) {
  StrBuf sb = {0};
  cpu_flags(&sb);
  bool found = false;
  size_t n = strlen(flag);
  for (const char *p = sb.data; p && (p = strstr(p, flag)); p += n)
    if ((p == sb.data || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0)) {
      found = true;
      break;
    }
  sb_free(&sb);
  return found;
}

static bool file_matches_meta(const char *lib, const char *meta) {
  FILE *f = fopen(meta, "r");
  if (!f) return false;
  long long size = -1;
  char want[65] = {0};
  bool ok = fscanf(f, "%lld %64s", &size, want) == 2;
  fclose(f);
  if (!ok) return false;
  size_t n;
  CoilErr *e = NULL;
  char *data = coil_read_file(lib, &n, &e);
  if (!data) {
    coil_err_free(e);
    return false;
  }
  char got[65];
  sha256_hex(data, n, got);
  free(data);
  return (long long)n == size && !strcmp(got, want);
}

static CoilErr *write_file_atomic(const char *path, const void *data, size_t n) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return coil_err("cannot write %s: %s", tmp, strerror(errno));
  bool ok = fwrite(data, 1, n, f) == n;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path)) {
    unlink(tmp);
    return coil_err("cannot write %s: %s", path, strerror(errno));
  }
  return NULL;
}

static CoilErr *run_compiler(const char *cc, const char *src, const char *out, const char *log) {
  pid_t pid = fork();
  if (pid < 0) return coil_err("fork failed: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    char flags[sizeof FLAGS + 64];
    snprintf(flags, sizeof flags, "%s", jit_flags());
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)cc;
    for (char *t = strtok(flags, " "); t && argc < 26; t = strtok(NULL, " ")) argv[argc++] = t;
    argv[argc++] = "-o";
    argv[argc++] = (char *)out;
    argv[argc++] = (char *)src;
    if (have_sleef) argv[argc++] = "-lsleefgnuabi";
    argv[argc++] = "-lm";
    argv[argc] = NULL;
    execvp(cc, argv);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return NULL;
  size_t n;
  CoilErr *e = NULL;
  char *msg = coil_read_file(log, &n, &e);
  coil_err_free(e);
  CoilErr *r = coil_err("the C compiler (%s) failed on generated code (a bug in coil); its output:\n%s", cc,
                          msg ? msg : "(none)");
  free(msg);
  return r;
}

CoilErr *jit_compile(const char *source, JitLib *lib) {
  memset(lib, 0, sizeof *lib);
  const char *cc = jit_cc();
  char ccpath[4096];
  if (!find_in_path(cc, ccpath, sizeof ccpath))
    return coil_err("no C compiler: '%s' is not on PATH (set CC to a C11 compiler such as gcc or clang)", cc);
  char dir[4096];
  CoilErr *e = jit_cache_dir(dir, sizeof dir);
  if (e) return e;
  struct stat st;
  stat(ccpath, &st);
  StrBuf key = {0};
  sb_printf(&key, "%s\n%lld %lld\n%s\n", ccpath, (long long)st.st_size, (long long)st.st_mtime, jit_flags());
  cpu_flags(&key);
  sb_puts(&key, source);
  char hex[65];
  sha256_hex(key.data, key.len, hex);
  sb_free(&key);
  char so[4200], meta[4200], lock[4200], csrc[4200], log[4200];
  snprintf(so, sizeof so, "%s/%s.so", dir, hex);
  snprintf(meta, sizeof meta, "%s/%s.meta", dir, hex);
  snprintf(lock, sizeof lock, "%s/%s.lock", dir, hex);
  lib->cached = true;
  if (!file_matches_meta(so, meta)) {
    int lfd = open(lock, O_RDWR | O_CREAT, 0600);
    if (lfd < 0) return coil_err("cannot create lock %s: %s", lock, strerror(errno));
    while (flock(lfd, LOCK_EX) && errno == EINTR) {}
    /* Another process may have built it while we waited. */
    if (!file_matches_meta(so, meta)) {
      lib->cached = false;
      double t0 = coil_now_ms();
      snprintf(csrc, sizeof csrc, "%s/%s.c", dir, hex);
      snprintf(log, sizeof log, "%s/%s.log.%d", dir, hex, (int)getpid());
      char tmpso[4300];
      snprintf(tmpso, sizeof tmpso, "%s.tmp.%d", so, (int)getpid());
      e = write_file_atomic(csrc, source, strlen(source));
      if (!e) e = run_compiler(cc, csrc, tmpso, log);
      unlink(log);
      if (!e) {
        size_t n;
        char *data = coil_read_file(tmpso, &n, &e);
        if (data) {
          char h[65];
          sha256_hex(data, n, h);
          free(data);
          char m[128];
          int len = snprintf(m, sizeof m, "%lld %s\n", (long long)n, h);
          if (rename(tmpso, so)) e = coil_err("cannot install %s: %s", so, strerror(errno));
          else e = write_file_atomic(meta, m, (size_t)len);
        }
      }
      unlink(tmpso);
      lib->compile_ms = coil_now_ms() - t0;
    }
    flock(lfd, LOCK_UN);
    close(lfd);
    if (e) return e;
  }
  snprintf(lib->path, sizeof lib->path, "%s", so);
  lib->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle) return coil_err("cannot load %s: %s", so, dlerror());
  return NULL;
}

void *jit_symbol(JitLib *lib, const char *name) { return dlsym(lib->handle, name); }

CoilErr *jit_share(const JitLib *from, JitLib *to) {
  *to = *from;
  to->handle = dlopen(from->path, RTLD_NOW | RTLD_LOCAL);
  if (!to->handle) return coil_err("cannot load %s: %s", from->path, dlerror());
  return NULL;
}

void jit_close(JitLib *lib) {
  if (lib->handle) dlclose(lib->handle);
  lib->handle = NULL;
}
