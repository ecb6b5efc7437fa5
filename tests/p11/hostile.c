/*
 * tests/p11/hostile.c - a hostile PKCS#11 module for 145-p11-hostile-module.t.
 * keyward-pkcs11 loads it as it loads any module (-P), and
 * the module behaves until its first call inside the sandbox
 * (C_GetSlotList, from LOGIN). There it makes the attack named by
 * $KW_P11_ATTACK, writes what happened to stderr as
 * "hostile: ATTACK: RESULT", and refuses the login. Attacks the filter
 * traps never return (the helper is stopped, its line naming the call);
 * what Landlock refuses returns an error, reported.
 *
 *   read:PATH    open PATH to read it (a user's key file)
 *   write:PATH   create PATH (outside every store)
 *   kill         SIGTERM to its parent (the broker, here p11_drive)
 *   ptrace       PTRACE_ATTACH to its parent
 *   peek         process_vm_readv of its parent's memory
 *   exec         execve /bin/sh
 *   fork         fork
 *   dumpable     prctl(PR_SET_DUMPABLE, 1)
 *   sigsys       take SIGSYS over (a handler that would let it carry on)
 *   execmem      map memory executable
 *   thread       start a thread and join it (allowed: modules do)
 *   init:ATTACK  ATTACK in C_Initialize instead, before the helper's own
 *                filter: only what it inherited from the broker holds
 *
 * Never installed; built as a shared object by `make tests`.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>

static void
report(const char *attack, int rc)
{
	fprintf(stderr, "hostile: %s: %s\n", attack,
	    rc < 0 ? strerror(errno) : "done");
}

static void *
thread_main(void *arg)
{
	return arg;
}

static void
on_sigsys(int sig)
{
	(void)sig;
}

static void
attack(int at_init)
{
	const char *a = getenv("KW_P11_ATTACK");
	char buf[16];
	struct iovec local = { buf, sizeof(buf) }, remote = { buf, sizeof(buf) };
	struct sigaction sa;
	pthread_t t;
	void *p;
	int fd, rc;

	if (a == NULL || (strncmp(a, "init:", 5) == 0) != at_init)
		return;
	if (at_init)
		a += 5;
	if (strncmp(a, "read:", 5) == 0) {
		fd = open(a + 5, O_RDONLY | O_CLOEXEC);
		report(a, fd);
	} else if (strncmp(a, "write:", 6) == 0) {
		fd = open(a + 6, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		report(a, fd);
	} else if (strcmp(a, "kill") == 0) {
		report(a, kill(getppid(), SIGTERM));
	} else if (strcmp(a, "ptrace") == 0) {
		report(a, (int)ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
	} else if (strcmp(a, "peek") == 0) {
		report(a, (int)process_vm_readv(getppid(), &local, 1, &remote, 1, 0));
	} else if (strcmp(a, "exec") == 0) {
		char *argv[] = { "/bin/sh", "-c", "true", NULL };
		report(a, execve(argv[0], argv, NULL));
	} else if (strcmp(a, "fork") == 0) {
		rc = fork();
		if (rc == 0)
			_exit(0);
		report(a, rc);
	} else if (strcmp(a, "dumpable") == 0) {
		report(a, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	} else if (strcmp(a, "sigsys") == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigsys;
		report(a, sigaction(SIGSYS, &sa, NULL));
	} else if (strcmp(a, "execmem") == 0) {
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		report(a, p == MAP_FAILED ? -1 : 0);
	} else if (strcmp(a, "thread") == 0) {
		rc = pthread_create(&t, NULL, thread_main, NULL);
		if (rc == 0)
			rc = pthread_join(t, NULL);
		errno = rc;
		report(a, rc != 0 ? -1 : 0);
	} else
		fprintf(stderr, "hostile: unknown attack %s\n", a);
}

static CK_RV
h_initialize(CK_VOID_PTR args)
{
	(void)args;
	attack(1);
	return CKR_OK;
}

static CK_RV
h_finalize(CK_VOID_PTR reserved)
{
	(void)reserved;
	return CKR_OK;
}

static CK_RV
h_get_slot_list(CK_BBOOL present, CK_SLOT_ID_PTR list, CK_ULONG_PTR count)
{
	(void)present;
	(void)list;
	attack(0);
	*count = 0;
	return CKR_GENERAL_ERROR;
}

static CK_RV
h_close_session(CK_SESSION_HANDLE s)
{
	(void)s;
	return CKR_OK;
}

static CK_FUNCTION_LIST functions = {
	.version = { 2, 40 },
	.C_Initialize = h_initialize,
	.C_Finalize = h_finalize,
	.C_GetSlotList = h_get_slot_list,
	.C_CloseSession = h_close_session,
};

CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list);

CK_RV
C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list)
{
	*list = &functions;
	return CKR_OK;
}
