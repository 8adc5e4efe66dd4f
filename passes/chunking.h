/*
 * Adaptive chunking (CGO'16 §6.4): how many virtual groups one dequeue hands
 * out, from the kernel's size in LLVM IR instructions. Small kernels take
 * several groups per atomic so the dequeue cost stays amortised.
 * The thresholds live only here.
 */
#ifndef AOS_CHUNKING_H
#define AOS_CHUNKING_H

#ifdef __cplusplus
extern "C" {
#endif

/* Virtual groups per dequeue for a kernel of `inst_count` IR instructions. */
static inline unsigned aos_chunk_for_inst_count(unsigned inst_count)
{
	static const struct { unsigned below; unsigned chunk; } table[] = {
		{ 10, 8 }, { 20, 6 }, { 30, 4 }, { 40, 2 },
	};
	for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (inst_count < table[i].below)
			return table[i].chunk;
	return 1;
}

#ifdef __cplusplus
}
#endif
#endif
