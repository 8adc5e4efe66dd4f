// accelos-clang-zygote: the JIT's clang front end, kept started (jit/zygote.c talks to it).
//
// Starting clang-15 costs about 27 ms on a 2-core VM (loading and initialising libclang-cpp and
// libLLVM) for a compile of 2-3 ms. This process does that once; each compile is a fork of it
// that runs clang's driver in process with the request's arguments, under the request's limits,
// its output on the request's pipe, so a crash or a limit still ends only that child.
//
// Protocol on fd 3 (SOCK_SEQPACKET): a request is one message, struct zygote_request then argc
// NUL-terminated arguments, with two descriptors: the pipe the child writes stdout and stderr to,
// and the pipe the zygote writes the child's wait status to (4 bytes) once it has ended. The reply
// is the child's pid (int32, or -errno). The zygote ends when fd 3 reaches end of file.
#include "child_setup.h"
#include "zygote_protocol.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/FrontendTool/Utils.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace clang;

namespace {

// What clang's own cc1_main does, minus its timers and crash handlers: the driver calls it for
// the -cc1 job in this process (clang's integrated cc1).
int runCC1(llvm::SmallVectorImpl<const char *> &Argv)
{
	auto Clang = std::make_unique<CompilerInstance>();
	IntrusiveRefCntPtr<DiagnosticIDs> DiagID(new DiagnosticIDs());
	IntrusiveRefCntPtr<DiagnosticOptions> DiagOpts = new DiagnosticOptions();
	auto *Buffer = new TextDiagnosticBuffer;
	DiagnosticsEngine Diags(DiagID, &*DiagOpts, Buffer);
	// Argv: the clang executable, "-cc1", then the job's arguments.
	bool Ok = CompilerInvocation::CreateFromArgs(Clang->getInvocation(), llvm::makeArrayRef(Argv).slice(2),
						     Diags, Argv[0]);
	Clang->createDiagnostics();
	if (!Clang->hasDiagnostics())
		return 1;
	Buffer->FlushDiagnostics(Clang->getDiagnostics());
	if (!Ok)
		return 1;
	Ok = ExecuteCompilerInvocation(Clang.get());
	llvm::errs().flush();
	return Ok ? 0 : 1;
}

int runDriver(std::vector<const char *> &Args)
{
	char Real[PATH_MAX];
	// The driver finds clang's headers from its executable's place, as clang does from
	// /proc/self/exe: the real path, not a symlink's.
	const char *Exe = realpath(Args[0], Real) ? Real : Args[0];
	IntrusiveRefCntPtr<DiagnosticOptions> DiagOpts = new DiagnosticOptions();
	auto *Printer = new TextDiagnosticPrinter(llvm::errs(), &*DiagOpts);
	IntrusiveRefCntPtr<DiagnosticIDs> DiagID(new DiagnosticIDs());
	DiagnosticsEngine Diags(DiagID, &*DiagOpts, Printer);
	driver::Driver D(Exe, llvm::sys::getDefaultTargetTriple(), Diags);
	D.CC1Main = runCC1;
	std::unique_ptr<driver::Compilation> C(D.BuildCompilation(Args));
	int Res = 1;
	if (C && !C->containsError()) {
		llvm::SmallVector<std::pair<int, const driver::Command *>, 4> Failing;
		Res = D.ExecuteCompilation(*C, Failing);
		// As clang's main: a job that failed normally leaves Res 0 and its code here.
		for (const auto &F : Failing)
			if (!Res)
				Res = F.first ? F.first : 1;
	}
	llvm::outs().flush();
	llvm::errs().flush();
	return Res;
}

[[noreturn]] void child(const aos_zygote_request &Req, std::vector<const char *> &Args, int Out)
{
	aos_child_setup(Out, Req.cpu_seconds, Req.address_space);
	signal(SIGCHLD, SIG_DFL);
	int Rc = runDriver(Args);
	fflush(stdout);
	_exit(Rc & 0xff);
}

// Reads one request; false at end of file. Out and Status are -1 unless the request carried them.
bool receive(int Sock, aos_zygote_request &Req, std::vector<char> &Strings, int &Out, int &Status)
{
	std::vector<char> Buf(sizeof(Req) + AOS_ZYGOTE_MAX_ARGS_BYTES);
	alignas(cmsghdr) char Ctl[CMSG_SPACE(2 * sizeof(int))];
	iovec Iov = { Buf.data(), Buf.size() };
	msghdr Msg = {};
	Msg.msg_iov = &Iov;
	Msg.msg_iovlen = 1;
	Msg.msg_control = Ctl;
	Msg.msg_controllen = sizeof(Ctl);
	Out = Status = -1;
	ssize_t N;
	do
		N = recvmsg(Sock, &Msg, MSG_CMSG_CLOEXEC);
	while (N < 0 && errno == EINTR);
	if (N <= 0)
		return false;
	for (cmsghdr *C = CMSG_FIRSTHDR(&Msg); C; C = CMSG_NXTHDR(&Msg, C)) {
		if (C->cmsg_level != SOL_SOCKET || C->cmsg_type != SCM_RIGHTS)
			continue;
		size_t Count = (C->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t I = 0; I < Count; I++) {
			int Fd;
			memcpy(&Fd, CMSG_DATA(C) + I * sizeof(int), sizeof(Fd));
			if (Count == 2 && I == 0 && Out < 0)
				Out = Fd;
			else if (Count == 2 && I == 1 && Status < 0)
				Status = Fd;
			else
				close(Fd); // any other number of descriptors: a malformed request's, not kept
		}
	}
	if ((size_t)N < sizeof(Req))
		return true; // malformed: no header; the caller refuses it
	memcpy(&Req, Buf.data(), sizeof(Req));
	Strings.assign(Buf.begin() + sizeof(Req), Buf.begin() + N);
	return true;
}

// The arguments of a request: argc NUL-terminated strings filling the rest exactly.
bool splitArgs(const aos_zygote_request &Req, std::vector<char> &Strings, std::vector<const char *> &Args)
{
	Args.clear();
	size_t At = 0;
	for (uint32_t I = 0; I < Req.argc; I++) {
		const void *End = memchr(Strings.data() + At, '\0', Strings.size() - At);
		if (!End)
			return false;
		Args.push_back(Strings.data() + At);
		At = (size_t)((const char *)End - Strings.data()) + 1;
	}
	return Req.magic == AOS_ZYGOTE_MAGIC && Req.argc >= 1 && Req.argc <= AOS_ZYGOTE_MAX_ARGS &&
	       At == Strings.size() && Args[0][0] == '/';
}

void reply(int Sock, int32_t Value)
{
	ssize_t N;
	do
		N = send(Sock, &Value, sizeof(Value), MSG_NOSIGNAL);
	while (N < 0 && errno == EINTR);
}

int SigPipe[2];

void onChild(int)
{
	int Saved = errno;
	char B = 0;
	(void)!write(SigPipe[1], &B, 1);
	errno = Saved;
}

// Every child that has ended: its status to the pipe its request gave for it.
void reap(std::map<pid_t, int> &StatusOf)
{
	int St;
	pid_t P;
	while ((P = waitpid(-1, &St, WNOHANG)) > 0) {
		auto It = StatusOf.find(P);
		if (It == StatusOf.end())
			continue;
		int32_t V = St;
		(void)!write(It->second, &V, sizeof(V));
		close(It->second);
		StatusOf.erase(It);
	}
}

} // namespace

int main()
{
	const int Sock = AOS_ZYGOTE_FD;
	llvm::InitializeAllTargetInfos();
	llvm::InitializeAllTargets();
	llvm::InitializeAllTargetMCs();
	llvm::InitializeAllAsmPrinters();
	llvm::InitializeAllAsmParsers();
	if (pipe2(SigPipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;
	struct sigaction Sa = {};
	Sa.sa_handler = onChild;
	Sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &Sa, nullptr);
	signal(SIGPIPE, SIG_IGN);
	std::map<pid_t, int> StatusOf;
	for (;;) {
		pollfd P[2] = { { Sock, POLLIN, 0 }, { SigPipe[0], POLLIN, 0 } };
		if (poll(P, 2, -1) < 0 && errno != EINTR)
			return 1;
		if (P[1].revents & POLLIN) {
			char B[64];
			while (read(SigPipe[0], B, sizeof(B)) > 0)
				;
			reap(StatusOf);
		}
		if (!(P[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		aos_zygote_request Req = {};
		std::vector<char> Strings;
		std::vector<const char *> Args;
		int Out, Status;
		if (!receive(Sock, Req, Strings, Out, Status))
			break;
		if (Out < 0 || Status < 0 || !splitArgs(Req, Strings, Args)) {
			if (Out >= 0)
				close(Out);
			if (Status >= 0)
				close(Status);
			reply(Sock, -EINVAL);
			continue;
		}
		pid_t Pid = fork();
		if (Pid == 0) {
			// The child keeps only its output: a status pipe of another request held open
			// here would keep that request's reader waiting if the zygote died.
			close(Sock);
			close(Status);
			close(SigPipe[0]);
			close(SigPipe[1]);
			for (const auto &Pending : StatusOf)
				close(Pending.second);
			child(Req, Args, Out);
		}
		close(Out);
		if (Pid < 0) {
			close(Status);
			reply(Sock, -errno);
			continue;
		}
		StatusOf[Pid] = Status;
		reply(Sock, Pid);
	}
	return 0;
}
