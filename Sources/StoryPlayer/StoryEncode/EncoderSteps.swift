internal import CFFmpeg
import Compositor
import StoryMedia

/// The steps a clip writer (`ClipWriter`) and a recording's encode (`LiveEncoder`) share: a
/// canvas into the encoder's picture, and an encoder's packets handed on, each with its length.
enum EncoderSteps {
    /// Converts the RGBA `image` into `picture` with `colour`'s matrix and stamps it frame
    /// `index`; `kind` names the output in messages. A 4:2:0 picture of the canvas's size (every
    /// H.264 output but 4:4:4) takes the compositor's conversion (`Frame.fill(from:matrix:)`,
    /// 2.5 times as fast); any other goes through swscale (`scaler`).
    static func fill(_ picture: Frame, from image: RGBAImage, index: Int, scaler: ScaleContext, colour: ClipColour,
                     for kind: String) throws(MediaError) {
        let writable = picture.makeWritable()
        guard writable >= 0 else { throw MediaError(.convert, "cannot convert a frame for the \(kind)", averror: writable) }
        if picture.fill(from: image, matrix: colour.yuvMatrix) {
            picture.pts = Int64(index)
            return
        }
        let lines = image.pixels.withUnsafeBufferPointer { rgba in
            scaler.scale(rgba: rgba.baseAddress!, width: Int32(image.width), height: Int32(image.height), into: picture,
                         matrix: colour.swsColorspace)
        }
        guard lines > 0 else { throw MediaError(.convert, "cannot convert a frame for the \(kind)", averror: lines) }
        picture.pts = Int64(index)
    }

    /// Sends `frame` (nil: flush) to `codec` (`avcodec_send_frame`) and gives each packet it
    /// makes (`avcodec_receive_packet`, into `packet`) to `take`.
    static func encode(_ frame: Frame?, with codec: CodecContext, into packet: Packet, isVideo: Bool,
                       _ take: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        var status = codec.send(frame: frame)
        guard status >= 0 || status == FFmpegError.endOfFile else { throw MediaError(.convert, "cannot encode", averror: status) }
        while true {
            status = codec.receive(packet: packet)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0 else { throw MediaError(.convert, "cannot encode", averror: status) }
            // A picture lasts one tick of its encoder's time base (1/fps). x264 and x265 leave
            // the duration unset, and an MP4's edit list then ends at the last picture's start,
            // which players (and ffmpeg) honour by dropping that picture.
            if isVideo && packet.duration == 0 { packet.duration = 1 }
            try take(packet)
        }
    }
}
