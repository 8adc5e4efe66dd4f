// Code generation settings for the OpenCL implementations that compile kernels inside this process
// with the same shared LLVM (PoCL's CPU device). LLVM's options are process-wide, so setting one
// here reaches PoCL's code generator without PoCL knowing.
#include "aos_passes.h"

#include "accelos/jit.h"

#include <cerrno>
#include <string>

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MathExtras.h>

namespace {

// X86's alignment of innermost loops, as log2 of bytes (LLVM's default: 4, 16 bytes).
constexpr const char *kInnermostLoopAlignOption = "x86-experimental-pref-innermost-loop-alignment";

} // namespace

extern "C" int aos_passes_set_host_loop_align(unsigned bytes)
{
	if (bytes == 0u)
		return 0;
	if (bytes < AOS_JIT_HOST_LOOP_ALIGN_MIN || bytes > AOS_JIT_HOST_LOOP_ALIGN_MAX || !llvm::isPowerOf2_32(bytes))
		return -EINVAL;
	llvm::StringMap<llvm::cl::Option *> &options = llvm::cl::getRegisteredOptions();
	auto it = options.find(kInnermostLoopAlignOption);
	if (it == options.end() || it->second == nullptr)
		return -ENOENT;
	// addOccurrence parses the value as the command line would, without the once-only check that
	// cl::ParseCommandLineOptions makes (which exits the process on a second call).
	std::string value = std::to_string(llvm::Log2_32(bytes));
	if (it->second->addOccurrence(0, kInnermostLoopAlignOption, value))
		return -EINVAL;
	return 0;
}
