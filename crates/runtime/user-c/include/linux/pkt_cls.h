/* User-space target: the TC verdicts of <linux/pkt_cls.h>. */
#ifndef P4U_LINUX_PKT_CLS_H
#define P4U_LINUX_PKT_CLS_H

#define TC_ACT_UNSPEC (-1)
#define TC_ACT_OK 0
#define TC_ACT_SHOT 2
#define TC_ACT_REDIRECT 7

#endif
