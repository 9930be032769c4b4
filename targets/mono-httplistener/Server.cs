// A .NET Framework-style server on Mono: System.Net.HttpListener answering
// the harness's plaintext and json scenarios, handling each request on the
// thread pool as .NET Framework services built on HttpListener do.
using System;
using System.IO;
using System.Net;
using System.Runtime.Serialization;
using System.Runtime.Serialization.Json;
using System.Text;
using System.Threading.Tasks;

[DataContract]
class Message
{
    [DataMember(Name = "message")]
    public string Text;
}

static class Server
{
    static readonly byte[] Hello = Encoding.UTF8.GetBytes("Hello, World!");
    static readonly DataContractJsonSerializer Json = new DataContractJsonSerializer(typeof(Message));

    static void Main()
    {
        string port = Environment.GetEnvironmentVariable("PORT") ?? "8080";
        var listener = new HttpListener();
        listener.Prefixes.Add("http://*:" + port + "/");
        listener.Start();
        // The harness reads this line to record the runtime version.
        Type mono = Type.GetType("Mono.Runtime");
        string version = mono == null ? Environment.Version.ToString()
            : (string)mono.GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static).Invoke(null, null);
        Console.WriteLine("runtime: mono " + version.Split(' ')[0]);
        Console.WriteLine("listening on :" + port);
        while (true)
        {
            HttpListenerContext ctx = listener.GetContext();
            Task.Run(() => Handle(ctx));
        }
    }

    static void Handle(HttpListenerContext ctx)
    {
        HttpListenerResponse res = ctx.Response;
        try
        {
            switch (ctx.Request.Url.AbsolutePath)
            {
                case "/plaintext":
                    res.ContentType = "text/plain; charset=utf-8";
                    res.ContentLength64 = Hello.Length;
                    res.OutputStream.Write(Hello, 0, Hello.Length);
                    break;
                case "/json":
                    var body = new MemoryStream();
                    Json.WriteObject(body, new Message { Text = "Hello, World!" });
                    res.ContentType = "application/json";
                    res.ContentLength64 = body.Length;
                    body.WriteTo(res.OutputStream);
                    break;
                default:
                    res.StatusCode = 404;
                    break;
            }
        }
        finally
        {
            res.Close();
        }
    }
}
