import NIOPosix

/// The event loop the database connections run on, apart from the server's: on a busy server
/// those loops are full of requests, and a batch's answer from PostgreSQL waited behind them
/// while every post in it was held up.
public enum DatabaseEventLoops {
    public static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
}
