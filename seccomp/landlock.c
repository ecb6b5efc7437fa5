/*
 * landlock.c - file-system (and TCP, and cross-domain signal and abstract
 * socket) confinement with Landlock, by raw syscalls: glibc 2.36 has no
 * wrappers and Debian 12's headers stop at ABI 2, so the later access
 * bits are defined here. On a kernel without Landlock one warning is
 * logged; seccomp still stands.
 */
#include "seccomp/sandbox.h"
#include "ipc/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LL_FS_TRUNCATE   (1ULL << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV  (1ULL << 15)   /* ABI 5 */
#define LL_NET_BIND_TCP    (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)  /* ABI 6 */
#define LL_SCOPE_SIGNAL        (1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

static uint64_t
fs_rights(long abi)
{
	uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1 */

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

static int
allow_path(int ruleset, const char *path, int is_dir, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	int rc;

	if ((pb.parent_fd = open(path, O_PATH | O_CLOEXEC |
	    (is_dir ? O_DIRECTORY : 0))) < 0)
		return -1;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0);
	close(pb.parent_fd);
	return rc;
}

static int
allow_beneath(int ruleset, const char *dir, uint64_t access)
{
	return allow_path(ruleset, dir, 1, access);
}

#ifdef KEYWARD_TESTING
/* Test builds only (make TESTING=1, never installed): with
 * KEYWARD_TEST_LANDLOCK=PATH, each process tries to read PATH right after
 * Landlock is on (before seccomp, which would kill it for trying) and logs
 * what happened, so 88-landlock.t can see the refusal is Landlock's. */
static void
probe_landlock(const char *who)
{
	const char *path = getenv("KEYWARD_TEST_LANDLOCK");
	int fd;

	if (path == NULL)
		return;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		close(fd);
		log_error("test build: %s under Landlock: open %s: opened", who, path);
	} else
		log_error("test build: %s under Landlock: open %s: %s", who, path,
		    strerror(errno));
}
#endif

/* A ruleset handling every right this kernel knows (TCP too unless
 * tcp is 0); -1 without Landlock. */
static int
ruleset_new(const char *who, long *abip, int tcp)
{
	struct ll_ruleset_attr attr = { 0 };
	size_t size;
	long abi;
	int fd;

	*abip = abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return -1;
	attr.handled_access_fs = fs_rights(abi);
	size = sizeof(attr.handled_access_fs);
	if (abi >= 4 && tcp) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	if ((fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0)) < 0)
		fatal("%s: landlock_create_ruleset: %m", who);
	return fd;
}

void
sandbox_landlock(const char *who, const char *rm_file_dir, const char *rm_dir_parent)
{
	const char *dirs[2] = { rm_file_dir, NULL };

	sandbox_landlock_rm(who, dirs, rm_dir_parent);
}

void
sandbox_landlock_rm(const char *who, const char *const *rm_file_dirs,
    const char *rm_dir_parent)
{
	long abi;
	int fd;

	if ((fd = ruleset_new(who, &abi, 1)) < 0) {
		log_error("warning: %s: Landlock is not available (%s); file-system "
		    "confinement rests on seccomp alone", who, strerror(errno));
		return;
	}
	/* The only file-system rights anyone keeps: the reaper may remove the
	 * sockets (the main one and the named ones of keyward(5)), and the -T
	 * directory from its parent. */
	for (; rm_file_dirs != NULL && *rm_file_dirs != NULL; rm_file_dirs++)
		if (allow_beneath(fd, *rm_file_dirs,
		    LANDLOCK_ACCESS_FS_REMOVE_FILE) != 0)
			fatal("%s: landlock rule for %s: %m", who, *rm_file_dirs);
	if (rm_dir_parent != NULL &&
	    allow_beneath(fd, rm_dir_parent, LANDLOCK_ACCESS_FS_REMOVE_DIR) != 0)
		fatal("%s: landlock rule for %s: %m", who, rm_dir_parent);
	if (syscall(SYS_landlock_restrict_self, fd, 0) != 0)
		fatal("%s: landlock_restrict_self: %m", who);
	close(fd);
	log_debug("%s: Landlock ABI %ld: no file-system access%s", who, abi,
	    rm_file_dirs != NULL && rm_file_dirs[0] != NULL ?
	    " but removing the socket" : "");
#ifdef KEYWARD_TESTING
	probe_landlock(who);
#endif
}

int
sandbox_landlock_token(const char *who, const char *const *ro_dirs,
    const char *const *dev_files)
{
	uint64_t dev = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
	long abi;
	int fd;

	if ((fd = ruleset_new(who, &abi, 1)) < 0)
		return -1;
	if (abi >= 5)
		dev |= LL_FS_IOCTL_DEV;         /* the hidraw descriptor ioctls */
	/* A path that is not there (no udev, no token yet) gets no rule: a
	 * token plugged in later is for the next helper. */
	for (; ro_dirs != NULL && *ro_dirs != NULL; ro_dirs++)
		if (allow_beneath(fd, *ro_dirs, LANDLOCK_ACCESS_FS_READ_FILE |
		    LANDLOCK_ACCESS_FS_READ_DIR) != 0)
			log_debug("%s: no Landlock rule for %s: %m", who, *ro_dirs);
	for (; dev_files != NULL && *dev_files != NULL; dev_files++)
		if (allow_path(fd, *dev_files, 0, dev) != 0)
			log_debug("%s: no Landlock rule for %s: %m", who, *dev_files);
	if (syscall(SYS_landlock_restrict_self, fd, 0) != 0)
		fatal("%s: landlock_restrict_self: %m", who);
	close(fd);
	log_debug("%s: Landlock ABI %ld: read-only beneath its directories, "
	    "read-write its device nodes, nothing else", who, abi);
#ifdef KEYWARD_TESTING
	probe_landlock(who);
#endif
	return 0;
}

/* What every PKCS#11 module may read: its own and the system's libraries
 * and configuration (p11-kit's module files, OpenSC's, the resolver's
 * /etc/hosts for a TPM reached over TCP), devices' sysfs entries, its
 * own /proc entries. Not /home, /root, /tmp, /run or /var: the user's
 * other keys and other programs' state are there. (pcscd's socket needs
 * no file right: Landlock does not govern connecting to a socket.) */
static const char *const p11_read[] = {
	"/etc", "/usr", "/lib", "/lib64", "/lib32", "/opt", "/sys",
	"/proc/self", NULL,
};
/* Devices a module may open read-write: a TPM (tpm2-pkcs11's device
 * TCTI), randomness, /dev/null. */
static const char *const p11_dev[] = {
	"/dev/null", "/dev/urandom", "/dev/random", "/dev/tpmrm0", "/dev/tpm0",
	NULL,
};

int
sandbox_landlock_pkcs11(const char *who, const char *const *confs,
    const char *const *stores)
{
	uint64_t rd = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	uint64_t rw = rd | LANDLOCK_ACCESS_FS_WRITE_FILE |
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR;
	uint64_t dev = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
	long abi;
	int fd;

	/* Not TCP: a module may reach its TPM or HSM over the network
	 * (swtpm, mssim, network HSMs), at ports no configuration here
	 * knows. Signals and abstract sockets outside it are scoped. */
	if ((fd = ruleset_new(who, &abi, 0)) < 0)
		return -1;
	if (abi >= 3) {
		rw |= LL_FS_TRUNCATE;
		dev |= LL_FS_TRUNCATE;
	}
	if (abi >= 5)
		dev |= LL_FS_IOCTL_DEV;
	/* What is not there (no /lib32, no TPM) gets no rule. */
	for (const char *const *p = p11_read; *p != NULL; p++)
		if (allow_beneath(fd, *p, rd) != 0)
			log_debug("%s: no Landlock rule for %s: %m", who, *p);
	for (const char *const *p = p11_dev; *p != NULL; p++)
		if (allow_path(fd, *p, 0, dev) != 0)
			log_debug("%s: no Landlock rule for %s: %m", who, *p);
	/* Both were just resolved by the caller: a missing one is an error. */
	for (; confs != NULL && *confs != NULL; confs++)
		if (allow_path(fd, *confs, 0, LANDLOCK_ACCESS_FS_READ_FILE) != 0)
			fatal("%s: landlock rule for %s: %m", who, *confs);
	for (; stores != NULL && *stores != NULL; stores++) {
		if (allow_beneath(fd, *stores, rw) != 0)
			fatal("%s: landlock rule for %s: %m", who, *stores);
		log_debug("%s: reads and writes beneath %s", who, *stores);
	}
	if (syscall(SYS_landlock_restrict_self, fd, 0) != 0)
		fatal("%s: landlock_restrict_self: %m", who);
	close(fd);
	log_debug("%s: Landlock ABI %ld: reads the system's files, writes its "
	    "stores, nothing else", who, abi);
#ifdef KEYWARD_TESTING
	probe_landlock(who);
#endif
	return 0;
}

/* Landlock for a process that starts helpers (the broker): it may execute
 * the files in exe[] and nothing else. Files stay open to it, since what
 * it starts inherits its domain: a PKCS#11 module writes its token files
 * (SoftHSM2's objects and lock) while it logs in, and a FIDO provider
 * opens the token's node, each before its helper confines itself. */
void
sandbox_landlock_exec(const char *who, const char *const *exe, size_t n)
{
	uint64_t handled = LANDLOCK_ACCESS_FS_EXECUTE;
	struct ll_ruleset_attr attr = { 0 };
	long abi;
	int fd;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		log_error("warning: %s: Landlock is not available (%s); it may "
		    "execute any program", who, strerror(errno));
		return;
	}
	attr.handled_access_fs = handled;
	if ((fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sizeof(attr.handled_access_fs), 0)) < 0)
		fatal("%s: landlock_create_ruleset: %m", who);
	for (size_t i = 0; i < n; i++)
		if (allow_path(fd, exe[i], 0, LANDLOCK_ACCESS_FS_EXECUTE) != 0)
			fatal("%s: landlock rule for %s: %m", who, exe[i]);
	if (syscall(SYS_landlock_restrict_self, fd, 0) != 0)
		fatal("%s: landlock_restrict_self: %m", who);
	close(fd);
	log_debug("%s: Landlock ABI %ld: executes %zu file(s), nothing else",
	    who, abi, n);
}
