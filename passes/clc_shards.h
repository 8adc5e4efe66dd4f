// libclc split into shards at build time (clc_split.cpp) and linked shard by shard at run
// time (aos_passes.cpp): one place for the rule that puts a function in a shard.
#ifndef AOS_CLC_SHARDS_H
#define AOS_CLC_SHARDS_H

#include <llvm/ADT/StringRef.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace aos {

// Why 256: each shard holds about 40 of libclc's 9737 functions (plus what they call), so the
// built-ins of a rewritten kernel (7 shards, typically) take about 3 ms to link on a 2-core
// VM, against 28 ms for the whole library read lazily (6 ms with 64 shards).
constexpr unsigned ClcShards = 256;

// The shard of a function: every overload of one built-in ("_Z3sinf", "_Z3sinDv4_f") lands in
// the same shard, since a program that calls one often calls another.
inline unsigned clcShardOf(llvm::StringRef Name)
{
	llvm::StringRef Base = Name;
	if (Name.startswith("_Z")) {
		llvm::StringRef Rest = Name.drop_front(2);
		unsigned Len = 0;
		if (!Rest.consumeInteger(10, Len) && Len <= Rest.size())
			Base = Rest.take_front(Len);
	}
	uint32_t H = 2166136261u; // FNV-1a
	for (unsigned char C : Base)
		H = (H ^ C) * 16777619u;
	return H % ClcShards;
}

inline std::string clcShardPath(llvm::StringRef Dir, unsigned Shard)
{
	char Name[32];
	snprintf(Name, sizeof(Name), "/clc-%02u.bc", Shard);
	return Dir.str() + Name;
}

} // namespace aos

#endif
