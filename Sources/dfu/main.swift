print("dfu")
