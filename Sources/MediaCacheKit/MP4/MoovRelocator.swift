/// Writes the faststart layout of a file: header boxes, patched moov, then mdat and the
/// rest, copied in the kernel (`copy_file_range`), never through user space.
public enum MoovRelocator {
    public static func write(_ plan: RelocationPlan, from source: DataFile, to destination: DataFile) throws {
        try destination.truncate(length: 0)
        try destination.preallocate(length: plan.length + plan.shift - (plan.moovEnd - plan.moovOffset))
        var out: Int64 = 0
        try source.copy(ByteRange(0, plan.mediaStart), to: destination, at: out)
        out += plan.mediaStart
        try destination.write(plan.newMoov, at: out)
        out += plan.shift
        // In pieces, each handed to the disk at once, so the flush below waits for the
        // last piece rather than for the whole file.
        var start = plan.mediaStart
        while start < plan.moovOffset {
            let end = min(plan.moovOffset, start + (16 << 20))
            try source.copy(ByteRange(start, end), to: destination, at: out)
            destination.startWriteback()
            out += end - start
            start = end
        }
        try source.copy(ByteRange(plan.moovEnd, plan.length), to: destination, at: out)
        try destination.syncData()
    }
}
