/* The stop bit of a cut wave's claim record, and when to ask again (accelos/cut_stop.h). */
#include "accelos/cut_stop.h"

#include "accelos/vndrange.h"

bool aos_cut_stop(uint32_t *claimed, bool *proven)
{
	uint32_t seen = __atomic_load_n(claimed, __ATOMIC_SEQ_CST);
	if (seen & ~AOS_CUT_STOP)
		*proven = true;
	while ((seen || *proven) && !(seen & AOS_CUT_STOP))
		if (__atomic_compare_exchange_n(claimed, &seen, seen | AOS_CUT_STOP, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return true;
	return false;
}

uint64_t aos_cut_retry_in_ns(uint64_t wave_age_ns)
{
	return wave_age_ns / 4 > AOS_CUT_RETRY_NS ? wave_age_ns / 4 : AOS_CUT_RETRY_NS;
}
