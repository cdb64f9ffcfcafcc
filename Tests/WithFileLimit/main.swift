// with-file-limit SOFT HARD PROGRAM [ARGUMENT...]
//
// Runs PROGRAM with RLIMIT_NOFILE set to SOFT/HARD by setrlimit(2), for end-to-end
// tests of how mediacache copes with few file descriptors. Descriptors above stderr
// are closed first, so the program starts with only 0, 1 and 2 whatever its parent had.

import Glibc

func fail(_ message: String) -> Never {
    let text = Array("with-file-limit: \(message)\n".utf8)
    _ = write(2, text, text.count)
    exit(127)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let soft = rlim_t(arguments[1]), let hard = rlim_t(arguments[2]) else {
    fail("usage: with-file-limit SOFT HARD PROGRAM [ARGUMENT...]")
}
var highest = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &highest)
for descriptor in 3..<Int32(min(highest.rlim_cur, 65536)) { close(descriptor) }
var limit = rlimit(rlim_cur: soft, rlim_max: hard)
if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 { fail("setrlimit: \(String(cString: strerror(errno)))") }
let program = Array(arguments.dropFirst(3))
var argv = program.map { strdup($0) } + [nil]
execv(program[0], &argv)
fail("cannot run \(program[0]): \(String(cString: strerror(errno)))")
