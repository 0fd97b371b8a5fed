internal import CFFmpeg
import Compositor

/// The version of live-stories, and of the libraries it runs with (`render-stories --version`).
public enum LiveStoriesVersion {
    public static let version = "0.3.0"

    /// FFmpeg's build (`av_version_info`, e.g. "5.1.9-0+deb12u1") and its libraries' versions
    /// (`avformat_version`, `avcodec_version`, …), as loaded.
    public static var ffmpeg: String {
        func dotted(_ version: UInt32) -> String { "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)" }
        return "\(String(cString: av_version_info())) (libavformat \(dotted(avformat_version())), "
            + "libavcodec \(dotted(avcodec_version())), libswscale \(dotted(swscale_version())), "
            + "libavutil \(dotted(avutil_version())))"
    }

    /// What `--version` prints: the tool's version, then one line per library.
    public static var description: String {
        """
        render-stories \(version)
        FFmpeg \(ffmpeg)
        libpng \(DrawingLibraries.libpng)
        FreeType \(DrawingLibraries.freetype)
        libheif \(HEIFLibrary.version)
        Little CMS \(ColourProfile.version)
        libass \(CaptionRenderer.version)
        """
    }
}
