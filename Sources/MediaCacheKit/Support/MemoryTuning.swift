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
}
