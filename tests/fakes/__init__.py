"""Local fake services on 127.0.0.1 (real sockets, real HTTP) that the tests talk to instead of the internet."""
