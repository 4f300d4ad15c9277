/* SPDX-License-Identifier: MIT */
/*
 * libnl reports its own NLE_* codes; the daemon's functions return -errno. This maps
 * the codes that netlink route requests produce back to the errno the kernel meant.
 */
#ifndef MPTUND_NLERR_H
#define MPTUND_NLERR_H

#include <errno.h>
#include <netlink/errno.h>

static inline int mpt_nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0: return 0;
	case NLE_EXIST: return EEXIST;
	case NLE_PERM: return EPERM;
	case NLE_NODEV: return ENODEV;
	case NLE_INVAL: return EINVAL;
	case NLE_NOADDR: return EADDRNOTAVAIL;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_NOMEM: return ENOMEM;
	case NLE_BUSY: return EBUSY;
	case NLE_AGAIN: return EAGAIN;
	case NLE_RANGE: return ERANGE;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_NOACCESS: return EACCES;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_BAD_SOCK: return EBADF;
	default: return EIO;
	}
}

#endif
