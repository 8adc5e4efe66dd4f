/* Per-subsystem logging to stderr, silent unless enabled (ACCELOS_DEBUG or the daemon's -v). */
#ifndef ACCELOS_LOG_H
#define ACCELOS_LOG_H

enum aos_log_level { AOS_LOG_ERROR = 0, AOS_LOG_WARN = 1, AOS_LOG_INFO = 2, AOS_LOG_DEBUG = 3 };

/* Messages at or below this level are printed; -1 prints nothing. */
void aos_log_set_level(int level);
int aos_log_level(void);
void aos_log(int level, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
