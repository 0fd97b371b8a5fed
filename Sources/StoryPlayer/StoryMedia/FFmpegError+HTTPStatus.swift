internal import CFFmpeg

extension FFmpegError {
    /// What the server answered, when an HTTP status is why the call failed ("HTTP 404 Not
    /// Found"), in the words players and servers log it in rather than FFmpeg's ("Server
    /// returned 404 Not Found"); nil for any other failure. FFmpeg keeps the exact status only
    /// for 400, 401, 403 and 404, and the class of the others.
    package var httpStatus: String? {
        switch cffmpeg_http_status(code) {
        case 400: "HTTP 400 Bad Request"
        case 401: "HTTP 401 Unauthorized"
        case 403: "HTTP 403 Forbidden"
        case 404: "HTTP 404 Not Found"
        case 499: "an HTTP 4xx client error"
        case 599: "an HTTP 5xx server error"
        default: nil
        }
    }
}

extension MediaError {
    /// The HTTP status a fetch failed with (`FFmpegError.httpStatus`), if that is why.
    package var httpStatus: String? { ffmpegError?.httpStatus }
}
