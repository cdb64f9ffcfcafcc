import CShims

/// Process-wide allocator settings, for the command line to apply at start.
public enum MemoryTuning {
    /// glibc gives every thread that allocates an arena of its own, and the commit and
    /// hashing threads then keep their freed buffers resident (about 40 MB over 200
    /// files of 5 MiB). A couple of shared arenas keep the peak down at no measured cost.
    public static func limitMallocArenas(to count: Int32 = 2) {
        _ = CShims_limit_malloc_arenas(count)
    }

    /// For a long-running server: glibc raises its mmap threshold after the first large
    /// buffer is freed, and from then on keeps freed buffers in the heap. 250 clients
    /// that stopped reading left 1.7 GB resident, which stayed after they left. A fixed
    /// trim threshold keeps large buffers mapped and returns them when freed (measured:
    /// 332 MB with those 250 clients, 66 MB after).
    public static func returnFreedMemoryPromptly() {
        _ = CShims_set_malloc_trim_threshold(128 << 10)
    }

    /// For a download run: libcurl allocates a 256 KiB receive buffer for every request
    /// and frees it when the request ends, and glibc handed the freed pages back to the
    /// kernel (heap trimming), so each response's first reads faulted in fresh zeroed
    /// pages: 16,000 page faults over 1,000 segments of 200 KiB, three quarters of them
    /// in `recv`. Buffers under 4 MiB (the hashing blocks too) now come from the heap,
    /// and up to 32 MiB of free heap stays for the next request: 5,800 faults, 25 % less
    /// system time, the same peak RSS within 3 %.
    public static func keepTransferBuffers() {
        _ = CShims_set_malloc_mmap_threshold(4 << 20)
        _ = CShims_set_malloc_trim_threshold(32 << 20)
    }
}
