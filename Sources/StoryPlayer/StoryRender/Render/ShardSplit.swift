/// "The frames of shard i of N": the one rule every way of running shards uses (the
/// `render-stories frames --shards` option behind scripts/render-sharded.sh, the Slurm array and
/// the Kubernetes Indexed Job), so that shards cut by one always join with another's.
public enum ShardSplit {
    /// The frame ranges of a render of `frames` frames cut into at most `shards` shards: each
    /// `ceil(frames / shards)` frames rounded up to a whole number of `unit`s (the last shorter),
    /// in order, covering 0..<frames without gaps. With a `unit` above 1 (a GOP, for shards whose
    /// clip segments are joined without re-encoding) fewer than `shards` ranges may come back.
    public static func ranges(frames: Int, shards: Int, unit: Int = 1) -> [Range<Int>] {
        precondition(frames >= 0 && shards >= 1 && unit >= 1)
        guard frames > 0 else { return [] }
        let even = (frames + shards - 1) / shards
        let size = (even + unit - 1) / unit * unit
        return stride(from: 0, to: frames, by: size).map { $0..<min($0 + size, frames) }
    }

    /// The GOP of a render's clip, in frames: one second (the clip writer's keyint).
    public static func gop(fps: Double) -> Int { max(1, Int(fps.rounded())) }
}
