import StoryMedia

extension MuxerContext {
    /// A stream for each of a recording's streams (video, then audio if it has sound), by kind:
    /// what every live output's muxer takes. `what` names the output in the error.
    func addStreams(_ streams: LiveStreams, for what: String) throws(MediaError) -> [LiveStreams.Kind: Int32] {
        var indexes: [LiveStreams.Kind: Int32] = [:]
        for kind in [LiveStreams.Kind.video, .audio] {
            guard let parameters = streams.parameters(kind) else { continue }
            let index = addStream(parameters: parameters)
            guard index >= 0 else { throw MediaError(.open, "cannot add a stream to \(what)", averror: index) }
            indexes[kind] = index
        }
        return indexes
    }
}
