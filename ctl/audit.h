/*
 * audit.h - keyward-ctl audit keygen|verify|tail (ctl/audit.c).
 */
#ifndef KEYWARD_CTL_AUDIT_H
#define KEYWARD_CTL_AUDIT_H

/* argv: what follows "audit"; tag: verify's --tag (the syslog tag of
 * keyward's lines), or NULL. The exit status, or -1 for a usage error. */
int audit_cmd(int argc, char **argv, int json, int follow, const char *state,
    const char *tag);

#endif
