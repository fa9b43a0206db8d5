from ramp.cli import main

main()
