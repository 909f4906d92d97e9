from app.cli.commands import main

raise SystemExit(main())
