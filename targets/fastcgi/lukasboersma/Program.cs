// A FastCGI responder with LukasBoersma/FastCGI (study 003), answering
// /plaintext behind the nginx front as the library's demo program does,
// but listening on every address (its Run(port) binds loopback only, which
// nginx on a bridge network could not reach). Its loop serves one
// connection at a time, as in the study.
using System.Net;
using FastCGI;

var port = int.Parse(Environment.GetEnvironmentVariable("PORT") ?? "9000");

var app = new FCGIApplication();
app.OnRequestReceived += (sender, request) =>
{
    // A CGI response: nginx turns these headers into the HTTP answer.
    request.WriteResponseUtf8("Status: 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello, World!");
    request.Close();
};

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");
app.Listen(new IPEndPoint(IPAddress.Any, port));
while (!app.IsStopping)
{
    // As Run does: process what arrived, sleep 1 ms when nothing did.
    if (!app.Process())
    {
        Thread.Sleep(1);
    }
}
